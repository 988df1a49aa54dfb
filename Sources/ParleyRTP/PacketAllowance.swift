/// At most `rate` packets a second, in bursts of up to `burst`: how many retransmissions one
/// receiver may have of us, so a flood of NACKs costs a bounded amount of sending (and never
/// reaches a publisher: it is answered from our caches). A value on time passed in (seconds).
public struct PacketAllowance: Sendable, Hashable {
    /// Packets a second, and how many at once; the owner may change both as it goes.
    public var rate: Double
    public var burst: Double
    private var tokens: Double
    private var last = -Double.infinity

    public init(rate: Double, burst: Double) {
        self.rate = max(rate, 0)
        self.burst = max(burst, 1)
        tokens = self.burst
    }

    /// Takes `amount` (one packet, or a message's bytes) at `now`; false when the allowance does
    /// not hold it (nothing is taken then).
    public mutating func take(_ amount: Double = 1, now: Double) -> Bool {
        if last.isFinite, now > last { tokens = min(burst, tokens + (now - last) * rate) }
        last = max(last, now)
        tokens = min(tokens, burst)
        guard tokens >= amount else { return false }
        tokens -= amount
        return true
    }
}
