import ParleyVideo
import Synchronization
import VideoCore

/// A remote video track's renderer: keeps the latest decoded frame (for PNG snapshots and the
/// demo's mosaic), counts frames, notes when the first came, and with a path appends every frame
/// to a Y4M file. The file keeps the first frame's size: later frames of another size (a simulcast
/// layer switch) are scaled to it.
final class VideoTrackRecorder: VideoRenderer {
    let path: String?
    private struct State {
        var file: Y4MFileSink?
        var scaler: I420Scaler?
        /// A frame of the file's size (its first frame's), scaled into when a later frame differs.
        var scaled: I420Frame?
        var latest: I420Frame?
        var firstFrameAt: ContinuousClock.Instant?
        var frames = 0
        var sizes: [String] = []
        var error: String?
    }
    private let state: Mutex<State>
    private let onFirstFrame: @Sendable (I420Frame) -> Void

    /// - Parameters:
    ///   - path: the Y4M file to write (created now), or nil to only keep the latest frame.
    ///   - frameRate: the rate written in the Y4M header (players show frames at it).
    init(path: String?, frameRate: FrameRate = FrameRate(framesPerSecond: 30),
         onFirstFrame: @escaping @Sendable (I420Frame) -> Void = { _ in }) throws(VideoSourceError) {
        self.path = path
        self.onFirstFrame = onFirstFrame
        state = Mutex(State(file: try path.map { (path) throws(VideoSourceError) in try Y4MFileSink(path: path, frameRate: frameRate) }))
    }

    func renderFrame(_ frame: I420Frame) {
        let first = state.withLock { s -> Bool in
            s.frames += 1
            s.latest = frame
            write(frame, into: &s)
            guard s.firstFrameAt == nil else { return false }
            s.firstFrameAt = .now
            return true
        }
        if first { onFirstFrame(frame) }
    }

    func updateVideoSize(width: Int, height: Int) { state.withLock { $0.sizes.append("\(width)x\(height)") } }

    private func write(_ frame: I420Frame, into s: inout State) {
        guard let file = s.file else { return }
        do throws(VideoSourceError) {
            guard let fileFrame = s.scaled, fileFrame.width != frame.width || fileFrame.height != frame.height else {
                if s.scaled == nil { s.scaled = I420Frame(width: frame.width, height: frame.height) }
                try file.write(frame)
                return
            }
            if s.scaler?.sourceWidth != frame.width || s.scaler?.sourceHeight != frame.height {
                s.scaler = I420Scaler(sourceWidth: frame.width, sourceHeight: frame.height,
                                      width: fileFrame.width, height: fileFrame.height)
            }
            guard let scaler = s.scaler else { throw .sizeMismatch(expected: "\(fileFrame.width)x\(fileFrame.height)",
                                                                  got: "\(frame.width)x\(frame.height)") }
            try scaler.scale(frame, into: &s.scaled!)
            try file.write(s.scaled!)
        } catch {
            s.error = error.description
            try? file.close()
            s.file = nil
        }
    }

    var latestFrame: I420Frame? { state.withLock { $0.latest } }
    var framesReceived: Int { state.withLock { $0.frames } }
    var firstFrameAt: ContinuousClock.Instant? { state.withLock { $0.firstFrameAt } }

    /// Writes the latest frame to `path` as PNG; false before the first frame.
    func snapshot(to path: String) throws(VideoSourceError) -> Bool {
        guard let frame = latestFrame else { return false }
        var encoder = PNGEncoder()
        let file = try FileByteSink(path: path)
        defer { file.close() }
        try file.write(encoder.encode(frame))
        return true
    }

    /// Closes the file; returns a one-line summary (`120 frames, 640x360`).
    func close() -> String {
        state.withLock { s in
            try? s.file?.close()
            s.file = nil
            let sizes = s.sizes.isEmpty ? "" : ", " + s.sizes.joined(separator: " → ")
            return "\(s.frames) frames\(sizes)" + (s.error.map { "; not complete: \($0)" } ?? "")
        }
    }
}
