import Testing
import CallQuality

@Suite struct MOSTests {
    @Test func perfectNetworkScoresNearTheTop() {
        // Effective latency 10 ms → R = 94.768 − 0.25 = 94.518 → MOS ≈ 4.433.
        let mos = MOS.score(rttMilliseconds: 0, jitterMilliseconds: 0, lossPercent: 0)
        #expect(abs(mos - 4.4333) < 0.001)
    }
}
