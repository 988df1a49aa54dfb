/// At most `rate` packets a second, in bursts of up to `burst`: how many retransmissions one
/// receiver may have of us, so a flood of NACKs costs a bounded amount of sending (and never
/// reaches a publisher: it is answered from our caches). A value on time passed in (seconds).
public struct PacketAllowance: Sendable, Hashable {
    public let rate: Double
    public let burst: Double
    private var tokens: Double
    private var last = -Double.infinity

    public init(rate: Double, burst: Double) {
        self.rate = max(rate, 0)
        self.burst = max(burst, 1)
        tokens = self.burst
    }

    /// Takes one packet's worth at `now`; false when the allowance is spent.
    public mutating func take(now: Double) -> Bool {
        if last.isFinite, now > last { tokens = min(burst, tokens + (now - last) * rate) }
        last = max(last, now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
