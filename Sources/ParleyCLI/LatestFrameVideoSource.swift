import Synchronization
import VideoCore

/// A video source that passes another's frames on and keeps the latest: what a participant
/// itself sends, for the demo's mosaic.
final class LatestFrameVideoSource: VideoSource {
    private let inner: any VideoSource
    private let latest = Mutex<I420Frame?>(nil)

    init(_ inner: any VideoSource) { self.inner = inner }

    var format: VideoFormat { inner.format }
    var isRunning: Bool { inner.isRunning }
    var latestFrame: I420Frame? { latest.withLock { $0 } }

    func start(_ consumer: @escaping VideoFrameConsumer) throws(VideoSourceError) {
        try inner.start { [self] frame in
            latest.withLock { $0 = frame }
            consumer(frame)
        }
    }

    func stop() { inner.stop() }
}
