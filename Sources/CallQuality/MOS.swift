/// Mean opinion score from network figures, by the formula Twilio publishes for its SDKs
/// (a simplified ITU-T G.107 E-model), exactly as twilio.js computes it (`lib/twilio/rtc/mos.ts`,
/// `calculate(rtt, jitter, fractionLost)`):
///
/// - effective latency = RTT + 2 × jitter + 10 ms;
/// - R = 94.768 − latency / 40 below 160 ms, 94.768 − (latency − 120) / 10 below 1000 ms, and 0 from
///   1000 ms on;
/// - if the loss (percent) is at most R / 2.5, R = max(R − 2.5 × loss, 6.52), otherwise R = 0
///   (so with no loss even a 0 from the latency step becomes the 6.52 floor);
/// - MOS = 1 + 0.035 R + 7·10⁻⁶ R (R − 60)(100 − R) (ITU-T G.107 Annex B).
///
/// Reachable R values are 0 or 6.52…94.518, so MOS runs from 1.0 to about 4.43.
public enum MOS {
    /// The E-model's R for a default narrowband call with no impairment, as Twilio uses it.
    public static let baseR = 94.768
    /// The lowest R a call with tolerable loss keeps (twilio.js's `Math.max(…, 6.52)`).
    public static let minimumR = 6.52

    /// R-factor for the given round-trip time and jitter (milliseconds) and loss (percent, 0–100).
    /// Inputs are expected to be non-negative and finite (see `calculate`).
    public static func rFactor(rttMilliseconds rtt: Double, jitterMilliseconds jitter: Double, lossPercent: Double) -> Double {
        let effectiveLatency = rtt + 2 * jitter + 10
        var r = 0.0
        if effectiveLatency < 160 {
            r = baseR - effectiveLatency / 40
        } else if effectiveLatency < 1000 {
            r = baseR - (effectiveLatency - 120) / 10
        }
        if lossPercent <= r / 2.5 {
            r = max(r - lossPercent * 2.5, minimumR)
        } else {
            r = 0
        }
        return r
    }

    /// MOS for an R-factor (ITU-T G.107 Annex B mapping): 1 at R ≤ 0, 4.5 at R ≥ 100 (neither clamp
    /// is reachable from `rFactor` except R = 0, where the polynomial gives 1 too).
    public static func fromRFactor(_ r: Double) -> Double {
        guard r > 0 else { return 1 }
        guard r < 100 else { return 4.5 }
        return 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r)
    }

    /// MOS for the given round-trip time and jitter (milliseconds) and loss (percent, 0–100), or nil
    /// when any input is negative, NaN or infinite (twilio.js returns null there).
    public static func calculate(rttMilliseconds rtt: Double, jitterMilliseconds jitter: Double, lossPercent: Double) -> Double? {
        guard isNonNegative(rtt), isNonNegative(jitter), isNonNegative(lossPercent) else { return nil }
        return fromRFactor(rFactor(rttMilliseconds: rtt, jitterMilliseconds: jitter, lossPercent: lossPercent))
    }

    /// MOS for the given round-trip time and jitter (milliseconds) and loss (percent, 0–100); NaN when
    /// an input is negative or not finite (use `calculate` to get nil instead).
    public static func score(rttMilliseconds rtt: Double, jitterMilliseconds jitter: Double, lossPercent: Double) -> Double {
        calculate(rttMilliseconds: rtt, jitterMilliseconds: jitter, lossPercent: lossPercent) ?? .nan
    }

    private static func isNonNegative(_ x: Double) -> Bool { x.isFinite && x >= 0 }
}
