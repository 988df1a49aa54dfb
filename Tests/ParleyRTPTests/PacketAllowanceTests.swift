import ParleyRTP
import Testing

/// The retransmission allowance: a burst, then the rate, on a virtual clock.
@Suite struct PacketAllowanceTests {
    @Test func aBurstThenTheRate() {
        var allowance = PacketAllowance(rate: 100, burst: 10)
        var taken = 0
        for _ in 0..<50 where allowance.take(now: 1) { taken += 1 }
        #expect(taken == 10, "the burst")
        var took = allowance.take(now: 1.005)
        #expect(!took, "half a token in 5 ms")
        took = allowance.take(now: 1.01)
        #expect(took)
        taken = 0
        for i in 0..<1_000 where allowance.take(now: 2 + Double(i) / 1_000) { taken += 1 }
        #expect((100...111).contains(taken), "a second at 100 a second (plus what accrued before): \(taken)")
        var none = PacketAllowance(rate: 0, burst: 1)
        took = none.take(now: 0)
        #expect(took)
        took = none.take(now: 100)
        #expect(!took, "no rate: the burst only")
    }
}
