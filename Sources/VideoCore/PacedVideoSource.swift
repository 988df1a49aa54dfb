import ParleyCore
import Synchronization

/// A `VideoSource` that drives any `VideoFrameProducer` from its own thread: a frame is asked for
/// when due (frame n at start + n × interval on the monotonic clock, so it does not drift), given
/// the source's 90 kHz timestamp and pushed to the consumer. A file source can loop. After a
/// stall of more than 100 ms the schedule restarts instead of bursting the backlog.
public final class PacedVideoSource: VideoSource {
    /// How frames are paced: at the frame rate, or back to back (tests, benchmarks, transcoding).
    public enum Pacing: Sendable { case realTime, asFastAsPossible }

    public let format: VideoFormat
    public let pacing: Pacing
    private let loops: Bool
    private let producer: Mutex<any VideoFrameProducer>
    private let thread: VideoSourceThread

    /// - Parameters:
    ///   - loops: at the end of the input, start again from the first frame.
    ///   - onEnd: called once from the source's thread when the input ends (nil) or fails (the
    ///     error); not called after `stop()`.
    public init(_ producer: sending any VideoFrameProducer, pacing: Pacing = .realTime, loops: Bool = false,
                onEnd: (@Sendable (VideoSourceError?) -> Void)? = nil) {
        format = producer.format
        self.pacing = pacing
        self.loops = loops
        self.producer = Mutex(producer)
        thread = VideoSourceThread(onEnd: onEnd)
    }

    deinit { stop() }

    public var isRunning: Bool { thread.isRunning }

    public func start(_ consumer: @escaping VideoFrameConsumer) throws(VideoSourceError) {
        try thread.start { [self] in run(consumer) }
    }

    public func stop() { thread.stop() }

    private func run(_ consumer: VideoFrameConsumer) -> VideoSourceThread.Ending {
        var frame = I420Frame(width: format.width, height: format.height)
        var start = SystemClock.now.nanoseconds, index: Int64 = 0, scheduled: Int64 = 0
        while !thread.shouldStop {
            if pacing == .realTime {
                let due = start + format.frameRate.nanoseconds(ofFrame: scheduled)
                let now = SystemClock.now.nanoseconds
                if now - due > 100_000_000 {
                    start = now
                    scheduled = 0
                } else {
                    // In slices, so a stop during a long frame interval returns within 50 ms.
                    while !thread.shouldStop, SystemClock.now.nanoseconds < due {
                        SystemClock.blockThread(until: MonotonicInstant(nanoseconds: min(due, SystemClock.now.nanoseconds + 50_000_000)))
                    }
                }
                if thread.shouldStop { break }
            }
            let produced = producer.withLock { producer -> Result<Bool, VideoSourceError> in
                do throws(VideoSourceError) {
                    if try producer.produce(into: &frame) { return .success(true) }
                    guard loops else { return .success(false) }
                    try producer.rewind()
                    return .success(try producer.produce(into: &frame))
                } catch { return .failure(error) }
            }
            switch produced {
            case .success(true):
                frame.timestamp = format.frameRate.timestamp90kHz(ofFrame: index)
                consumer(frame)
                index += 1
                scheduled += 1
            case .success(false): return .finished
            case .failure(let error): return .failed(error)
            }
        }
        return .stopped
    }
}
