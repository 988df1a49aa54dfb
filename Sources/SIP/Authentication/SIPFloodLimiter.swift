/// Limits how fast one source may start INVITE and REGISTER transactions (issue 18 §5: a flood
/// from one address is rate-limited before it costs a digest check, a media leg or a store
/// write): a token bucket per source address, `rate` requests a second with bursts of `burst`.
/// Over the limit a source is answered `503` with `Retry-After` at most once a second, and its
/// other requests are dropped unanswered (so a flood is not reflected). Bounded: at most
/// `capacity` sources are tracked; full buckets are pruned first, and past capacity new sources
/// are let through (and counted) rather than growing the table. A pure value on time passed in (seconds).
public struct SIPFloodLimiter: Sendable {
    public enum Verdict: Sendable, Hashable {
        case allow
        /// Answer `503 Service Unavailable` with `Retry-After: seconds`.
        case refuse(retryAfter: Int)
        /// Drop without an answer.
        case drop
    }

    public let rate: Double
    public let burst: Double
    public let capacity: Int
    /// Sources let through untracked because the table was full.
    public private(set) var untracked = 0
    private var buckets: [[UInt8]: Bucket] = [:]

    private struct Bucket: Sendable {
        var tokens: Double
        var updated: Double
        var lastRefusal = -Double.infinity
    }

    /// - Parameters: `rate`: sustained requests per second per source (0 or less: no limit);
    ///   `burst`: how many may come at once.
    public init(rate: Double = 50, burst: Double = 100, capacity: Int = 10_000) {
        self.rate = rate
        self.burst = max(1, burst)
        self.capacity = max(1, capacity)
    }

    public var trackedSources: Int { buckets.count }

    /// A rate-limited request from `source` (its address bytes) at `now`.
    public mutating func admit(_ source: [UInt8], now: Double) -> Verdict {
        guard rate > 0 else { return .allow }
        if buckets[source] == nil, buckets.count >= capacity {
            prune(now: now)
            guard buckets.count < capacity else {
                untracked += 1
                return .allow
            }
        }
        var bucket = buckets[source] ?? Bucket(tokens: burst, updated: now)
        bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * rate)
        bucket.updated = now
        defer { buckets[source] = bucket }
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            return .allow
        }
        guard now - bucket.lastRefusal >= 1 else { return .drop }
        bucket.lastRefusal = now
        // Long enough for one token to come back, in whole seconds (RFC 3261 §20.33).
        return .refuse(retryAfter: max(1, Int((1 / rate).rounded(.up))))
    }

    /// Forgets sources whose bucket has refilled (they are as if never seen).
    private mutating func prune(now: Double) {
        buckets = buckets.filter { _, bucket in bucket.tokens + (now - bucket.updated) * rate < burst }
    }
}
