/// Mean opinion score from network figures, by the formula Twilio publishes for its SDKs
/// (a simplified ITU-T G.107 E-model): effective latency = RTT + 2 × jitter + 10 ms; R starts
/// at 94.768, loses latency/40 below 160 ms or (latency − 120)/10 up to 1 s, then 2.5 per percent
/// of packet loss (floor 6.52); MOS = 1 + 0.035 R + 7·10⁻⁶ R (R − 60)(100 − R).
public enum MOS {
    /// The E-model's R for a default narrowband call with no impairment, as Twilio uses it.
    public static let baseR = 94.768

    /// R-factor for the given round-trip time and jitter (milliseconds) and loss (percent, 0–100).
    public static func rFactor(rttMilliseconds rtt: Double, jitterMilliseconds jitter: Double, lossPercent: Double) -> Double {
        let effectiveLatency = rtt + 2 * jitter + 10
        var r: Double
        if effectiveLatency < 160 {
            r = baseR - effectiveLatency / 40
        } else if effectiveLatency < 1000 {
            r = baseR - (effectiveLatency - 120) / 10
        } else {
            r = 0
        }
        if lossPercent <= r / 2.5 {
            r = max(r - lossPercent * 2.5, 6.52)
        } else {
            r = 0
        }
        return r
    }

    /// MOS (1.0–4.5) for an R-factor (ITU-T G.107 Annex B mapping).
    public static func fromRFactor(_ r: Double) -> Double {
        guard r > 0 else { return 1 }
        guard r < 100 else { return 4.5 }
        return 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r)
    }

    /// MOS for the given round-trip time and jitter (milliseconds) and loss (percent, 0–100).
    public static func score(rttMilliseconds rtt: Double, jitterMilliseconds jitter: Double, lossPercent: Double) -> Double {
        fromRFactor(rFactor(rttMilliseconds: rtt, jitterMilliseconds: jitter, lossPercent: lossPercent))
    }
}
