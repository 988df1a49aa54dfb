#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import AudioCore
import ParleyCore
import Synchronization

/// A joinable POSIX thread for a device's audio work. The body polls `isStopRequested`;
/// `stop()` requests the stop and joins, so once it returns the body has finished and makes no
/// more calls. Called from the body itself (say, from a callback that stops the device), `stop()`
/// only requests the stop and detaches: the body returns to its loop and exits.
final class DeviceThread: Sendable {
    private let stopFlag = Atomic<Bool>(false)
    private let handle = Mutex<pthread_t?>(nil)

    /// Starts `body` on a new thread; `name` appears in errors.
    init(name: String, body: @escaping @Sendable (DeviceThread) -> Void) throws(AudioDeviceError) {
        let start = ThreadStart(thread: self, body: body)
        let context = Unmanaged.passRetained(start).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
            start.body(start.thread)
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(context).release()
            throw AudioDeviceError(.unavailable, "cannot start the \(name) thread: \(String(cString: strerror(status)))")
        }
        handle.withLock { $0 = thread }
    }

    var isStopRequested: Bool { stopFlag.load(ordering: .acquiring) }

    /// Requests the stop and waits for the body to return (unless called on this thread). Idempotent.
    func stop() {
        stopFlag.store(true, ordering: .releasing)
        guard let thread = handle.withLock({ h -> pthread_t? in defer { h = nil }; return h }) else { return }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    deinit {
        // Unreachable while the body runs (the body holds the thread object); detach a finished one.
        if let thread = handle.withLock({ $0 }) { pthread_detach(thread) }
    }
}

private final class ThreadStart: Sendable {
    let thread: DeviceThread
    let body: @Sendable (DeviceThread) -> Void

    init(thread: DeviceThread, body: @escaping @Sendable (DeviceThread) -> Void) {
        self.thread = thread
        self.body = body
    }
}

/// The device threads' time: `SystemClock` in nanoseconds, and sleeping until an absolute time on
/// it (so periodic work scheduled as `start + n × period` does not drift).
enum DeviceClock {
    static func now() -> Int64 { SystemClock.now.nanoseconds }

    static func sleep(until deadline: Int64) { SystemClock.blockThread(until: MonotonicInstant(nanoseconds: deadline)) }

    /// Nanoseconds `frames` frames last at `sampleRate`, exact and without overflow for any
    /// realistic stream length.
    static func nanoseconds(frames: Int64, sampleRate: Int) -> Int64 {
        let rate = Int64(sampleRate)
        return frames / rate * 1_000_000_000 + frames % rate * 1_000_000_000 / rate
    }
}
