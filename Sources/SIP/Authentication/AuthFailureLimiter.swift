/// Refuses a source after repeated failed authentications (issue 18 §5): `maxFailures` within
/// `window` seconds block it for `blockFor` seconds. Bounded: at most `capacity` sources are
/// tracked; expired entries are pruned first, and past capacity new sources go untracked (and
/// counted) rather than growing the table. A pure value on time passed in (seconds).
public struct AuthFailureLimiter: Sendable {
    public let maxFailures: Int
    public let window: Double
    public let blockFor: Double
    public let capacity: Int
    /// Sources not tracked because the table was full.
    public private(set) var untracked = 0
    private var failures: [String: [Double]] = [:]
    private var blockedUntil: [String: Double] = [:]

    public init(maxFailures: Int = 5, window: Double = 60, blockFor: Double = 300, capacity: Int = 10_000) {
        self.maxFailures = max(1, maxFailures)
        self.window = window
        self.blockFor = blockFor
        self.capacity = max(1, capacity)
    }

    public var trackedSources: Int { failures.count + blockedUntil.count }

    public func isBlocked(_ source: String, now: Double) -> Bool {
        (blockedUntil[source] ?? -.infinity) > now
    }

    /// A failed authentication from `source`; true when it is now blocked.
    @discardableResult
    public mutating func failed(_ source: String, now: Double) -> Bool {
        if isBlocked(source, now: now) { return true }
        if failures[source] == nil, trackedSources >= capacity {
            prune(now: now)
            guard trackedSources < capacity else {
                untracked += 1
                return false
            }
        }
        var recent = (failures[source] ?? []).filter { now - $0 < window }
        recent.append(now)
        if recent.count >= maxFailures {
            failures[source] = nil
            blockedUntil[source] = now + blockFor
            return true
        }
        failures[source] = recent
        return false
    }

    /// A successful authentication clears the source's failures.
    public mutating func succeeded(_ source: String) {
        failures[source] = nil
    }

    private mutating func prune(now: Double) {
        failures = failures.filter { _, times in times.contains { now - $0 < window } }
        blockedUntil = blockedUntil.filter { $0.value > now }
    }
}
