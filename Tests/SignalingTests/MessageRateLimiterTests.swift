import Testing
import Signaling

@Suite struct MessageRateLimiterTests {
    static let second: Int64 = 1_000_000

    /// Runs the attempts in order and returns which were allowed.
    static func attempts(_ limiter: inout MessageRateLimiter, _ list: [(String, Int64)]) -> [Bool] {
        list.map { limiter.allow(callSid: $0.0, now: $0.1) }
    }

    @Test func allowsTenPerRollingMinute() {
        var limiter = MessageRateLimiter()
        let first = Self.attempts(&limiter, (0..<10).map { ("CA1", Int64($0) * Self.second) })
        #expect(first == Array(repeating: true, count: 10))
        let later = Self.attempts(&limiter, [
            ("CA1", 10 * Self.second),
            ("CA1", 59 * Self.second + 999_999),
            ("CA1", 60 * Self.second),        // the message of t = 0 has left the window
            ("CA1", 60 * Self.second + 1),
            ("CA1", 61 * Self.second),        // the message of t = 1 s has left it
            ("CA1", 61 * Self.second),
        ])
        #expect(later == [false, false, true, false, true, false])
    }

    @Test func refusedMessagesDoNotCount() {
        var limiter = MessageRateLimiter(limit: 2, window: 10 * Self.second)
        var list: [(String, Int64)] = [("CA1", 0), ("CA1", 1)]
        list += stride(from: Int64(2), to: 10 * Self.second, by: Int(Self.second)).map { ("CA1", $0) }
        list += [("CA1", 10 * Self.second), ("CA1", 10 * Self.second + 1), ("CA1", 10 * Self.second + 2)]
        let results = Self.attempts(&limiter, list)
        #expect(results == [true, true] + Array(repeating: false, count: 10) + [true, true, false])
    }

    @Test func callsAreLimitedSeparately() {
        var limiter = MessageRateLimiter()
        let full = Self.attempts(&limiter, Array(repeating: ("CA1", 0), count: 11) + [("CA2", 0)])
        #expect(full == Array(repeating: true, count: 10) + [false, true])
        limiter.remove(callSid: "CA1")
        #expect(Self.attempts(&limiter, [("CA1", 0)]) == [true])
    }

    @Test func memoryIsBounded() {
        var limiter = MessageRateLimiter(limit: 10, window: 60 * Self.second, maxCalls: 100)
        _ = Self.attempts(&limiter, (0..<2_000).map { ("CA\($0)", Int64($0)) })
        #expect(limiter.trackedCalls == 100)
    }

    @Test func idleCallsAreDroppedBeforeActiveOnes() {
        let t = 100 * Self.second
        var limiter = MessageRateLimiter(limit: 3, window: 60 * Self.second, maxCalls: 3)
        let results = Self.attempts(&limiter, [
            ("old1", t - 61 * Self.second), ("old2", t - 61 * Self.second),
            ("busy", t), ("busy", t), ("busy", t),
            ("new", t),           // full: both idle calls go
            ("busy", t + 1),      // the busy call kept its count
        ])
        #expect(results == [true, true, true, true, true, true, false])
        #expect(limiter.trackedCalls == 2)
    }

    @Test func evictsTheStalestCallWhenAllAreActive() {
        var limiter = MessageRateLimiter(limit: 1, window: 60 * Self.second, maxCalls: 2)
        let results = Self.attempts(&limiter, [("a", 1), ("b", 2), ("c", 3), ("b", 4), ("c", 4), ("a", 4)])
        // c evicts a (the stalest); b and c stay limited; a starts afresh and evicts b.
        #expect(results == [true, true, true, false, false, true])
        #expect(limiter.trackedCalls == 2)
    }
}
