/// The rate limiter of a simulated link: a token bucket drained in FIFO order with a drop-tail
/// queue. Tokens (bytes) accrue at the rate up to the bucket's depth; a packet leaves when the
/// bucket holds its length, so back-to-back packets leave at the line rate once the bucket is empty.
/// Departure times are computed when a packet arrives (they never decrease), so the queue is just
/// the departures still in the future, kept in a ring allocated once.
struct TokenBucket: Sendable {
    private(set) var rateBitsPerSecond: Int64?
    private(set) var depthBytes: Double
    private var departures: [Int64]
    private var head = 0
    private var queued = 0
    private var tokens: Double
    private var tokenTime: Int64?

    init(rateBitsPerSecond: Int64?, depthBytes: Int, queueLimit: Int) {
        self.rateBitsPerSecond = rateBitsPerSecond.flatMap { $0 > 0 ? $0 : nil }
        self.depthBytes = Double(max(depthBytes, 1))
        departures = Array(repeating: 0, count: max(queueLimit, 1))
        tokens = self.depthBytes
    }

    /// Packets waiting at `now` (after `admit` pruned the departed ones).
    var queueLength: Int { queued }

    /// Admits a packet of `length` bytes arriving at `now`; returns when it leaves the limiter, or
    /// nil if the queue is full (the packet is dropped).
    mutating func admit(length: Int, at now: Int64) -> Int64? {
        guard let rate = rateBitsPerSecond else { return now }
        while queued > 0, departures[head] <= now {
            head = (head + 1) % departures.count
            queued -= 1
        }
        if queued >= departures.count { return nil }
        let lastTime = tokenTime ?? now
        // The link is free at the later of now and the previous departure (FIFO).
        let start = max(now, lastTime)
        let bytesPerMicrosecond = Double(rate) / 8_000_000
        tokens = min(depthBytes, tokens + Double(start - lastTime) * bytesPerMicrosecond)
        let need = Double(max(length, 0))
        var departure = start
        if tokens >= need {
            tokens -= need
        } else {
            let wait = ((need - tokens) / bytesPerMicrosecond).rounded(.up)
            departure = start + Int64(wait)
            tokens = min(depthBytes, tokens + wait * bytesPerMicrosecond) - need
            tokens = max(tokens, 0)
        }
        tokenTime = departure
        if departure > now {
            departures[(head + queued) % departures.count] = departure
            queued += 1
        }
        return departure
    }
}
