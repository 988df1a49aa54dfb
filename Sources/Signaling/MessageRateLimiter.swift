/// Allows at most `limit` call messages per rolling `window` per call (10 per minute by default).
///
/// A value type driven by the caller's clock (`now` in microseconds, monotonic), so tests run on a
/// virtual clock. Memory is bounded: each call keeps at most `limit` timestamps, and at most
/// `maxCalls` calls are tracked; when full, calls whose window has passed are dropped first, then
/// the call that sent least recently.
public struct MessageRateLimiter: Sendable {
    /// Messages allowed per window per call.
    public let limit: Int
    /// The rolling window, in microseconds.
    public let window: Int64
    /// Calls tracked at once.
    public let maxCalls: Int

    /// The send times of one call's last `limit` allowed messages, oldest first.
    private struct History: Sendable {
        var times: [Int64]
        var newest: Int64 { times.last ?? .min }
    }

    private var calls: [String: History] = [:]

    public init(limit: Int = 10, window: Int64 = 60_000_000, maxCalls: Int = 4096) {
        self.limit = max(1, limit)
        self.window = max(1, window)
        self.maxCalls = max(1, maxCalls)
    }

    /// Number of calls currently tracked.
    public var trackedCalls: Int { calls.count }

    /// Whether the call may send a message at `now`; an allowed message is counted, a refused one is not.
    public mutating func allow(callSid: String, now: Int64) -> Bool {
        if let index = calls.index(forKey: callSid) {
            // Mutated in place through `values`, so the timestamps are not copied.
            if calls.values[index].times.count >= limit {
                // The oldest of the last `limit` messages must have left the window (now - window, now].
                guard let oldest = calls.values[index].times.first, now &- oldest >= window else { return false }
                calls.values[index].times.removeFirst()
            }
            calls.values[index].times.append(now)
            return true
        }
        if calls.count >= maxCalls { evict(now: now) }
        var times: [Int64] = []
        times.reserveCapacity(limit)
        times.append(now)
        calls[callSid] = History(times: times)
        return true
    }

    /// Forgets a call (when it ends).
    public mutating func remove(callSid: String) {
        calls[callSid] = nil
    }

    /// Makes room for one call in one pass: drops every call with no message in the window, or
    /// else the one whose last message is oldest.
    private mutating func evict(now: Int64) {
        var expired: [String] = []
        var stalest: (key: String, newest: Int64)?
        for (key, history) in calls {
            if now &- history.newest >= window {
                expired.append(key)
            } else if stalest.map({ history.newest < $0.newest }) ?? true {
                stalest = (key, history.newest)
            }
        }
        if expired.isEmpty {
            if let stalest { calls[stalest.key] = nil }
        } else {
            for key in expired { calls[key] = nil }
        }
    }
}
