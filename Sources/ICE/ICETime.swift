/// A point in time as the ICE state machines see it: a `Duration` since an epoch the owner picks
/// (for example the `ContinuousClock.Instant` at which the session started).
///
/// The ICE target reads no clock. Every event carries `now`, and the owner calls `tick(now:)` at
/// or after each agent's `nextDeadline`. Tests drive time with a virtual clock.
public struct ICEInstant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
    /// Time since the owner's epoch.
    public var sinceEpoch: Duration

    public init(sinceEpoch: Duration) { self.sinceEpoch = sinceEpoch }

    /// From nanoseconds since the epoch.
    public init(nanoseconds: UInt64) {
        self.sinceEpoch = .nanoseconds(Int64(truncatingIfNeeded: min(nanoseconds, UInt64(Int64.max))))
    }

    /// The epoch itself.
    public static let zero = ICEInstant(sinceEpoch: .zero)

    public func advanced(by duration: Duration) -> ICEInstant { ICEInstant(sinceEpoch: sinceEpoch + duration) }
    public func duration(to other: ICEInstant) -> Duration { other.sinceEpoch - sinceEpoch }
    public static func < (lhs: ICEInstant, rhs: ICEInstant) -> Bool { lhs.sinceEpoch < rhs.sinceEpoch }

    public var description: String { "t+\(sinceEpoch)" }
}

/// The earliest of optional deadlines.
func earliest(_ instants: ICEInstant?...) -> ICEInstant? {
    instants.compactMap { $0 }.min()
}
