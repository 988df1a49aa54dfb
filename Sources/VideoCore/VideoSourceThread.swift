#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The thread a source pushes frames from (`PacedVideoSource`, `V4L2CaptureSource`): started
/// once per run, stopped and joined by `stop()` (detached when `stop()` comes from the run
/// itself, from a consumer), with `onEnd` told once when a run ends by itself.
final class VideoSourceThread: Sendable {
    /// How a run ended: asked to stop, the input ended, or it failed.
    enum Ending: Sendable { case stopped, finished, failed(VideoSourceError) }

    private struct State {
        var thread: pthread_t?
        var running = false
    }

    private let state = Mutex(State())
    private let stopRequested = Atomic<Bool>(false)
    private let onEnd: (@Sendable (VideoSourceError?) -> Void)?

    /// - Parameter onEnd: called once from the thread when a run finishes (nil) or fails (the
    ///   error); not after `stop()`.
    init(onEnd: (@Sendable (VideoSourceError?) -> Void)?) { self.onEnd = onEnd }

    var isRunning: Bool { state.withLock { $0.running } }
    /// Whether `stop()` was called: the run's loop checks it between frames.
    var shouldStop: Bool { stopRequested.load(ordering: .acquiring) }

    /// Runs `body` on a new thread; throws `alreadyStarted` when a run is going.
    func start(_ body: @escaping @Sendable () -> Ending) throws(VideoSourceError) {
        try state.withLock { s throws(VideoSourceError) in
            guard !s.running else { throw .alreadyStarted }
            if let ended = s.thread { pthread_detach(ended) }  // a run that ended by itself
            stopRequested.store(false, ordering: .releasing)
            let run = ThreadBody { [self] in
                let ending = body()
                state.withLock { $0.running = false }
                guard !shouldStop else { return }
                switch ending {
                case .stopped: break
                case .finished: onEnd?(nil)
                case .failed(let error): onEnd?(error)
                }
            }
            let context = Unmanaged.passRetained(run).toOpaque()
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

    /// Asks the run to stop and waits for it (unless called from the run itself). Idempotent.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
        guard let thread = state.withLock({ s -> pthread_t? in defer { s.thread = nil }; return s.thread }) else { return }
        if pthread_equal(thread, pthread_self()) != 0 { pthread_detach(thread) } else { pthread_join(thread, nil) }
        state.withLock { $0.running = false }
    }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
