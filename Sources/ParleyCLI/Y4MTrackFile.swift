import VideoCore

/// A received video track written to a Y4M file. The header's frame rate is measured: the first
/// frames wait until four have come and their 90 kHz timestamps (the sender's capture clock) give
/// the rate. The file keeps the first frame's size: a later frame of another size (a simulcast
/// layer switch) is scaled to it. The first error stops the file and is kept. One owner.
struct Y4MTrackFile {
    let path: String
    private var sink: Y4MFileSink?
    private var waiting: [I420Frame] = []
    private var scaler: I420Scaler?
    /// A frame of the file's size, scaled into when a frame differs.
    private var scaled: I420Frame?
    private(set) var error: String?
    private(set) var frameRate: FrameRate?

    static let framesForRate = 4

    /// Creates the file now (empty), so a path that cannot be written fails here.
    init(path: String) throws(VideoSourceError) {
        self.path = path
        try FileByteSink(path: path).close()
    }

    mutating func write(_ frame: I420Frame) {
        guard error == nil else { return }
        guard sink == nil else { return append(frame) }
        waiting.append(frame)
        if waiting.count >= Self.framesForRate { open() }
    }

    /// Writes what waits and closes the file. Idempotent.
    mutating func close() {
        if sink == nil, !waiting.isEmpty { open() }
        try? sink?.close()
        sink = nil
    }

    /// Frames per second from the waiting frames' timestamps (30 with fewer than two), 1 to 60.
    static func measuredRate(of frames: [I420Frame]) -> FrameRate {
        guard let first = frames.first, let last = frames.last, frames.count > 1 else { return FrameRate(framesPerSecond: 30) }
        let ticks = Double(last.timestamp &- first.timestamp) / Double(frames.count - 1)
        guard ticks > 0 else { return FrameRate(framesPerSecond: 30) }
        return FrameRate(framesPerSecond: min(60, max(1, Int((90_000 / ticks).rounded()))))
    }

    private mutating func open() {
        let rate = Self.measuredRate(of: waiting)
        frameRate = rate
        do throws(VideoSourceError) {
            sink = try Y4MFileSink(path: path, frameRate: rate)
        } catch {
            self.error = error.description
            return
        }
        let frames = waiting
        waiting = []
        for frame in frames { append(frame) }
    }

    private mutating func append(_ frame: I420Frame) {
        guard let sink, error == nil else { return }
        do throws(VideoSourceError) {
            guard let fileFrame = scaled, fileFrame.width != frame.width || fileFrame.height != frame.height else {
                if scaled == nil { scaled = I420Frame(width: frame.width, height: frame.height) }
                try sink.write(frame)
                return
            }
            if scaler?.sourceWidth != frame.width || scaler?.sourceHeight != frame.height {
                scaler = I420Scaler(sourceWidth: frame.width, sourceHeight: frame.height, width: fileFrame.width, height: fileFrame.height)
            }
            guard let scaler else {
                throw .sizeMismatch(expected: "\(fileFrame.width)x\(fileFrame.height)", got: "\(frame.width)x\(frame.height)")
            }
            try scaler.scale(frame, into: &scaled!)
            try sink.write(scaled!)
        } catch {
            self.error = error.description
            try? sink.close()
            self.sink = nil
        }
    }
}
