import CallQuality
import Testing

/// Golden vectors for Twilio's MOS (twilio.js `lib/twilio/rtc/mos.ts`), computed by hand from the
/// published formula: effective latency L = RTT + 2·jitter + 10; R = 94.768 − L/40 (L < 160),
/// 94.768 − (L − 120)/10 (L < 1000), else 0; loss ≤ R/2.5 → R = max(R − 2.5·loss, 6.52), else 0;
/// MOS = 1 + 0.035R + 7e-6·R(R − 60)(100 − R).
@Suite struct MOSTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let rtt: Double, jitter: Double, loss: Double, r: Double, mos: Double
        var testDescription: String { "rtt \(rtt) jitter \(jitter) loss \(loss)%" }
    }

    static let vectors: [Vector] = [
        // Perfect network: L = 10 → R = 94.518.
        Vector(rtt: 0, jitter: 0, loss: 0, r: 94.518, mos: 4.433328),
        // Typical: L = 40 + 10 + 10 = 60 → R = 93.268 − 1.25 = 92.018.
        Vector(rtt: 40, jitter: 5, loss: 0.5, r: 92.018, mos: 4.385248),
        // L = 130 → R = 91.518, minus 2.5 → 89.018.
        Vector(rtt: 100, jitter: 10, loss: 1, r: 89.018, mos: 4.314205),
        // L = 160 exactly: second branch, 94.768 − 4 = 90.768 (both branches meet there).
        Vector(rtt: 150, jitter: 0, loss: 0, r: 90.768, mos: 4.357359),
        // L = 999.999: still the second branch, R = 6.7681.
        Vector(rtt: 989.999, jitter: 0, loss: 0, r: 6.7681, mos: 1.001757),
        // L = 1000: R = 0 from latency; no loss, so the 6.52 floor applies.
        Vector(rtt: 990, jitter: 0, loss: 0, r: 6.52, mos: 1.000031),
        // Huge RTT with some loss: loss > 0 = R/2.5, so R = 0 and MOS = 1.
        Vector(rtt: 5000, jitter: 50, loss: 0.1, r: 0, mos: 1),
        // Heavy loss, under R/2.5: L = 130, R = 91.518 − 75 = 16.518.
        Vector(rtt: 100, jitter: 10, loss: 30, r: 16.518, mos: 1.158412),
        // Loss just under R/2.5 = 36.6072 → floored at 6.52.
        Vector(rtt: 100, jitter: 10, loss: 36.6, r: 6.52, mos: 1.000031),
        // Loss beyond R/2.5 → R = 0.
        Vector(rtt: 100, jitter: 10, loss: 36.7, r: 0, mos: 1),
        // L = 350 → R = 94.768 − 23 = 71.768, minus 20 → 51.768.
        Vector(rtt: 300, jitter: 20, loss: 8, r: 51.768, mos: 2.668),
        // L = 120 → R = 91.768, minus 5 → 86.768.
        Vector(rtt: 50, jitter: 30, loss: 2, r: 86.768, mos: 4.252009),
    ]

    @Test(arguments: vectors) func goldenVector(_ v: Vector) {
        let r = MOS.rFactor(rttMilliseconds: v.rtt, jitterMilliseconds: v.jitter, lossPercent: v.loss)
        #expect(abs(r - v.r) < 1e-3)
        let mos = MOS.score(rttMilliseconds: v.rtt, jitterMilliseconds: v.jitter, lossPercent: v.loss)
        #expect(abs(mos - v.mos) < 1e-3)
        #expect(MOS.calculate(rttMilliseconds: v.rtt, jitterMilliseconds: v.jitter, lossPercent: v.loss) == mos)
    }

    @Test func invalidInputGivesNoScore() {
        #expect(MOS.calculate(rttMilliseconds: -1, jitterMilliseconds: 0, lossPercent: 0) == nil)
        #expect(MOS.calculate(rttMilliseconds: 0, jitterMilliseconds: .nan, lossPercent: 0) == nil)
        #expect(MOS.calculate(rttMilliseconds: 0, jitterMilliseconds: 0, lossPercent: .infinity) == nil)
        #expect(MOS.score(rttMilliseconds: 0, jitterMilliseconds: -5, lossPercent: 0).isNaN)
    }

    @Test func scoreFallsMonotonicallyWithLossAndLatency() {
        var previous = 5.0
        for loss in stride(from: 0.0, through: 40, by: 0.5) {
            let mos = MOS.score(rttMilliseconds: 50, jitterMilliseconds: 5, lossPercent: loss)
            #expect(mos <= previous && mos >= 1)
            previous = mos
        }
        previous = 5.0
        for rtt in stride(from: 0.0, through: 2000, by: 10) {
            let mos = MOS.score(rttMilliseconds: rtt, jitterMilliseconds: 0, lossPercent: 0)
            #expect(mos <= previous && mos >= 1)
            previous = mos
        }
    }
}
