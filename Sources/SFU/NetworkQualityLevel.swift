import CallQuality

/// A participant's network quality level, 0 (no network) to 5 (excellent), as Twilio's Network
/// Quality API reports it: the lower of an audio level — from Twilio's MOS of the participant's
/// round-trip time, jitter and loss — and, when video is sent or received, a bandwidth level
/// from the estimated bandwidth over what the tracks need.
public enum NetworkQualityLevel {
    /// The level for these figures; nil figures (no report yet) count as perfect, zero bandwidth
    /// while tracks need some as no network.
    public static func level(rttMilliseconds rtt: Double?, jitterMilliseconds jitter: Double?, lossPercent loss: Double?,
                             availableBitrate: Int? = nil, neededBitrate: Int? = nil) -> Int {
        let mos = MOS.calculate(rttMilliseconds: rtt ?? 0, jitterMilliseconds: jitter ?? 0, lossPercent: loss ?? 0) ?? 1
        let audio = switch mos {
        case 4.2...: 5
        case 4.0..<4.2: 4
        case 3.6..<4.0: 3
        case 3.1..<3.6: 2
        case 2.5..<3.1: 1
        default: 0
        }
        guard let needed = neededBitrate, needed > 0, let available = availableBitrate else { return audio }
        let ratio = Double(available) / Double(needed)
        let bandwidth = switch ratio {
        case 1...: 5
        case 0.8..<1: 4
        case 0.6..<0.8: 3
        case 0.4..<0.6: 2
        case 0.0001..<0.4: 1
        default: 0
        }
        return min(audio, bandwidth)
    }
}
