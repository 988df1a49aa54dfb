#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's monotonic clock (`CLOCK_MONOTONIC`): not moved by wall-clock changes.
public struct SystemClock: MonotonicClock {
    public init() {}

    public var now: MonotonicInstant { Self.now }

    /// The current instant, without a clock value (event loops and device threads read it directly).
    public static var now: MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    public func sleep(until deadline: MonotonicInstant) async throws {
        let remaining = Self.now.duration(to: deadline)
        if remaining > .zero { try await Task.sleep(for: remaining) }
        try Task.checkCancellation()
    }

    /// Blocks the calling thread until `deadline`, an absolute time, so periodic work scheduled
    /// as `start + n × period` does not drift with the time each iteration takes (media and
    /// device threads; never called from a task).
    public static func blockThread(until deadline: MonotonicInstant) {
        guard deadline.nanoseconds > 0 else { return }
        #if os(Linux)
        var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
        #else
        let remaining = deadline.nanoseconds - now.nanoseconds
        if remaining > 0 { usleep(UInt32(min(remaining / 1_000, Int64(UInt32.max)))) }
        #endif
    }
}
