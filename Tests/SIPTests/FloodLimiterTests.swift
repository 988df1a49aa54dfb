import SIP
import Testing

/// The per-address INVITE/REGISTER token bucket, on a virtual clock (seconds).
@Suite struct FloodLimiterTests {
    let a: [UInt8] = [192, 0, 2, 1]
    let b: [UInt8] = [192, 0, 2, 2]

    @Test func aBurstPassesThenOneRefusalASecondAndTheRestDropped() {
        var limiter = SIPFloodLimiter(rate: 10, burst: 20)
        for _ in 0..<20 { #expect(limiter.admit(a, now: 0) == .allow) }
        #expect(limiter.admit(a, now: 0) == .refuse(retryAfter: 1))
        #expect(limiter.admit(a, now: 0.05) == .drop)
        #expect(limiter.admit(a, now: 0.09) == .drop)
        // Another address has its own bucket.
        #expect(limiter.admit(b, now: 0.09) == .allow)
        // 0.1 s later one token is back (10 a second).
        #expect(limiter.admit(a, now: 0.15) == .allow)
        #expect(limiter.admit(a, now: 0.15) == .drop)
        #expect(limiter.admit(a, now: 1.01) == .allow)
        // After a quiet spell the whole burst is back.
        for _ in 0..<20 { #expect(limiter.admit(a, now: 10) == .allow) }
    }

    @Test func aSlowRateAsksForAsLongAsOneTokenTakes() {
        var limiter = SIPFloodLimiter(rate: 0.25, burst: 1)
        #expect(limiter.admit(a, now: 0) == .allow)
        #expect(limiter.admit(a, now: 0) == .refuse(retryAfter: 4))
    }

    @Test func zeroRateIsNoLimit() {
        var limiter = SIPFloodLimiter(rate: 0)
        for _ in 0..<10_000 { #expect(limiter.admit(a, now: 0) == .allow) }
        #expect(limiter.trackedSources == 0)
    }

    @Test func theTableIsBoundedAndRefilledSourcesArePruned() {
        var limiter = SIPFloodLimiter(rate: 1, burst: 1, capacity: 2)
        #expect(limiter.admit([1], now: 0) == .allow)
        #expect(limiter.admit([2], now: 0) == .allow)
        // Full, nothing refilled yet: a third source goes through untracked.
        #expect(limiter.admit([3], now: 0) == .allow)
        #expect(limiter.untracked == 1)
        #expect(limiter.trackedSources == 2)
        // Two seconds on, both buckets are full again and pruned for the new source.
        #expect(limiter.admit([3], now: 2) == .allow)
        #expect(limiter.trackedSources == 1)
    }
}
