#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's wall clock in whole seconds since the Unix epoch (JWT NumericDate, RFC 7519 §2).
/// The verifier takes a clock closure so tests can substitute their own.
public enum WallClock {
    /// Now, in seconds since 1970-01-01T00:00:00Z.
    @Sendable public static func now() -> Int64 {
        Int64(time(nil))
    }
}
