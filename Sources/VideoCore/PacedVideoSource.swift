#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
    private let onEnd: (@Sendable (VideoSourceError?) -> Void)?
    private let state: Mutex<State>
    private let stopRequested = Atomic<Bool>(false)

    private struct State {
        var producer: any VideoFrameProducer
        var thread: pthread_t?
        var running = false
    }

    /// - Parameters:
    ///   - loops: at the end of the input, start again from the first frame.
    ///   - onEnd: called once from the source's thread when the input ends (nil) or fails (the
    ///     error); not called after `stop()`.
    public init(_ producer: sending any VideoFrameProducer, pacing: Pacing = .realTime, loops: Bool = false,
                onEnd: (@Sendable (VideoSourceError?) -> Void)? = nil) {
        format = producer.format
        self.pacing = pacing
        self.loops = loops
        self.onEnd = onEnd
        state = Mutex(State(producer: producer))
    }

    deinit { stop() }

    public var isRunning: Bool { state.withLock { $0.running } }

    public func start(_ consumer: @escaping VideoFrameConsumer) throws(VideoSourceError) {
        try state.withLock { s throws(VideoSourceError) in
            guard !s.running else { throw .alreadyStarted }
            if let ended = s.thread { pthread_detach(ended) }  // a run that ended by itself
            stopRequested.store(false, ordering: .releasing)
            let body = ThreadBody { [self] in run(consumer) }
            let context = Unmanaged.passRetained(body).toOpaque()
            #if os(Linux)
            var thread = pthread_t()
            #else
            var thread: pthread_t?
            #endif
            let status = pthread_create(&thread, nil, { raw in
                Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, context)
            guard status == 0 else {
                Unmanaged<ThreadBody>.fromOpaque(context).release()
                throw .io(path: "video source thread", operation: "pthread_create", errno: status)
            }
            s.thread = thread
            s.running = true
        }
    }

    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        guard let thread = state.withLock({ s -> pthread_t? in defer { s.thread = nil }; return s.thread }) else { return }
        if pthread_equal(thread, pthread_self()) != 0 { pthread_detach(thread) } else { pthread_join(thread, nil) }
        state.withLock { $0.running = false }
    }

    private func run(_ consumer: VideoFrameConsumer) {
        var frame = I420Frame(width: format.width, height: format.height)
        var start = SystemClock.now.nanoseconds, index: Int64 = 0, scheduled: Int64 = 0
        var ending: VideoSourceError?? = nil
        while !stopRequested.load(ordering: .acquiring) {
            if pacing == .realTime {
                let due = start + format.frameRate.nanoseconds(ofFrame: scheduled)
                let now = SystemClock.now.nanoseconds
                if now - due > 100_000_000 {
                    start = now
                    scheduled = 0
                } else {
                    // In slices, so a stop during a long frame interval returns within 50 ms.
                    while !stopRequested.load(ordering: .acquiring), SystemClock.now.nanoseconds < due {
                        SystemClock.blockThread(until: MonotonicInstant(nanoseconds: min(due, SystemClock.now.nanoseconds + 50_000_000)))
                    }
                }
                if stopRequested.load(ordering: .acquiring) { break }
            }
            let produced = state.withLock { s -> Result<Bool, VideoSourceError> in
                do throws(VideoSourceError) {
                    if try s.producer.produce(into: &frame) { return .success(true) }
                    guard loops else { return .success(false) }
                    try s.producer.rewind()
                    return .success(try s.producer.produce(into: &frame))
                } catch { return .failure(error) }
            }
            switch produced {
            case .success(true):
                frame.timestamp = format.frameRate.timestamp90kHz(ofFrame: index)
                consumer(frame)
                index += 1
                scheduled += 1
                continue
            case .success(false): ending = .some(nil)
            case .failure(let error): ending = .some(error)
            }
            break
        }
        state.withLock { $0.running = false }
        if let ending, !stopRequested.load(ordering: .acquiring) { onEnd?(ending) }
    }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
