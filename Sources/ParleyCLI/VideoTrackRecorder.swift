import ParleyVideo
import Synchronization
import VideoCore

/// A remote video track's renderer: keeps the latest decoded frame (for PNG snapshots and the
/// demo's mosaic), counts frames, notes when the first came, and with a path writes every frame
/// to a Y4M file (`Y4MTrackFile`).
final class VideoTrackRecorder: VideoRenderer {
    let path: String?
    private struct State {
        var file: Y4MTrackFile?
        var latest: I420Frame?
        var firstFrameAt: ContinuousClock.Instant?
        var frames = 0
        var sizes: [String] = []
    }
    private let state: Mutex<State>
    private let onFirstFrame: @Sendable (I420Frame) -> Void

    /// - Parameters:
    ///   - path: the Y4M file to write (created now), or nil to only keep the latest frame.
    ///   - onFirstFrame: called with the first decoded frame, on the track's task.
    init(path: String?, onFirstFrame: @escaping @Sendable (I420Frame) -> Void = { _ in }) throws(VideoSourceError) {
        self.path = path
        self.onFirstFrame = onFirstFrame
        state = Mutex(State(file: try path.map { (path) throws(VideoSourceError) in try Y4MTrackFile(path: path) }))
    }

    func renderFrame(_ frame: I420Frame) {
        let first = state.withLock { s -> Bool in
            s.frames += 1
            s.latest = frame
            s.file?.write(frame)
            guard s.firstFrameAt == nil else { return false }
            s.firstFrameAt = .now
            return true
        }
        if first { onFirstFrame(frame) }
    }

    func updateVideoSize(width: Int, height: Int) { state.withLock { $0.sizes.append("\(width)x\(height)") } }

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

    /// Closes the file; returns a one-line summary (`120 frames, 640x360 at 30 fps`).
    func close() -> String {
        state.withLock { s in
            s.file?.close()
            let sizes = s.sizes.isEmpty ? "" : ", " + s.sizes.joined(separator: " → ")
            let rate = s.file?.frameRate.map { " at \($0)" } ?? ""
            return "\(s.frames) frames\(sizes)\(rate)" + (s.file?.error.map { "; not complete: \($0)" } ?? "")
        }
    }
}
