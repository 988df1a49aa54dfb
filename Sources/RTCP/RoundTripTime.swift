#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// NTP timestamp helpers (RFC 3550 §4).
public enum NTPTime {
    /// The wall clock as a 64-bit NTP timestamp (seconds since 1900 in 32.32).
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let seconds = UInt64(ts.tv_sec) &+ 2_208_988_800
        let fraction = (UInt64(ts.tv_nsec) << 32) / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// The middle 32 bits of a 64-bit NTP timestamp (16.16 seconds), as carried in LSR (§6.4.1).
    public static func compact(_ ntpTimestamp: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: ntpTimestamp >> 16)
    }
}

/// Round-trip time from a report block (RFC 3550 §6.4.1).
public enum RoundTripTime {
    /// RTT = A − LSR − DLSR, all in compact NTP units (1/65536 s), where A is when the report
    /// block arrived. Nil when LSR is 0 (no SR received yet) or the result would be negative
    /// (clock trouble or a bogus report). Wraps like the 32-bit fields do.
    public static func compute(arrival: UInt32, lastSenderReport: UInt32,
                               delaySinceLastSenderReport: UInt32) -> UInt32? {
        guard lastSenderReport != 0 else { return nil }
        let sinceSR = arrival &- lastSenderReport
        // A before LSR (in 32-bit serial order) or DLSR longer than the whole interval: negative.
        guard sinceSR < 0x8000_0000, sinceSR >= delaySinceLastSenderReport else { return nil }
        return sinceSR - delaySinceLastSenderReport
    }

    /// Converts compact NTP units (1/65536 s) to microseconds.
    public static func microseconds(fromCompact value: UInt32) -> Int64 {
        Int64(value) * 1_000_000 / 65_536
    }
}
