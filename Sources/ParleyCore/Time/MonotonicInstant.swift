/// A point on a monotonic clock: nanoseconds since the clock's origin (boot for `SystemClock`,
/// zero for a virtual clock in tests). It never goes back and has nothing to do with wall time.
public struct MonotonicInstant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The origin itself.
    public static let zero = MonotonicInstant(nanoseconds: 0)

    public func advanced(by duration: Duration) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: nanoseconds.addingReportingOverflow(duration.wholeNanoseconds).partialValue)
    }

    public func duration(to other: MonotonicInstant) -> Duration { .nanoseconds(other.nanoseconds &- nanoseconds) }

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// Seconds since the origin, for the pure state machines that take `now` as seconds.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// Seconds from `origin` to this instant (an owner's epoch), fractional.
    public func seconds(since origin: MonotonicInstant) -> Double { Double(nanoseconds &- origin.nanoseconds) / 1e9 }

    public var description: String { "t+\(Duration.nanoseconds(nanoseconds))" }
}
