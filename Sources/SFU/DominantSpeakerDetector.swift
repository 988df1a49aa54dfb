/// Who is speaking in a room, from the RFC 6464 audio levels each participant's packets carry
/// (0 dBov loudest … 127 silence): a value type fed levels and the time, which names the
/// dominant speaker with hysteresis, so a cough or a short reply does not take the floor.
///
/// Each participant's loudness is smoothed over about `smoothing`; a packet below
/// `speechLevel` dBov (quieter than that) counts as silence. The floor goes to another participant
/// only after they have been louder than the current speaker by `switchRatio` for `holdTime`, or
/// at once when the current speaker has been silent for `holdTime`.
public struct DominantSpeakerDetector: Sendable {
    public struct Settings: Sendable {
        /// Levels quieter than this (dBov, higher numbers) are silence.
        public var speechLevel: UInt8 = 50
        public var smoothing: Duration = .milliseconds(300)
        public var switchRatio: Double = 1.5
        public var holdTime: Duration = .milliseconds(1000)
        public init() {}
    }

    public let settings: Settings
    public private(set) var dominant: String?
    private var loudness: [String: (value: Double, updated: Int64)] = [:]
    private var challenger: (id: String, since: Int64)?
    private var lastSpeech: [String: Int64] = [:]

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// One audio level of `participant` at `now` (milliseconds of a monotonic clock).
    public mutating func level(_ dBov: UInt8, of participant: String, at now: Int64) {
        let linear = dBov >= settings.speechLevel ? 0 : pow10(-Double(dBov) / 20)
        let previous = loudness[participant]
        let tau = Double(settings.smoothing.milliseconds)
        let elapsed = Double(max(0, now - (previous?.updated ?? now)))
        let alpha = previous == nil ? 1 : min(1, elapsed / max(1, tau))
        let value = (previous?.value ?? 0) * (1 - alpha) + linear * alpha
        loudness[participant] = (value, now)
        if linear > 0 { lastSpeech[participant] = now }
    }

    /// A participant left: it no longer competes (and loses the floor).
    public mutating func remove(_ participant: String) {
        loudness[participant] = nil
        lastSpeech[participant] = nil
        if challenger?.id == participant { challenger = nil }
        if dominant == participant { dominant = nil }
    }

    /// Re-decides at `now`; the new dominant speaker when it changed, else nil.
    public mutating func evaluate(at now: Int64) -> String?? {
        let hold = settings.holdTime.milliseconds
        // Loudness decays toward silence for participants that stopped sending.
        let current = loudness.mapValues { entry -> Double in
            let idle = Double(max(0, now - entry.updated))
            return entry.value * max(0, 1 - idle / Double(max(1, settings.smoothing.milliseconds)))
        }
        // What is left of past speech once it decays under the speech level is silence.
        guard let (loudest, score) = current.max(by: { $0.value < $1.value }),
              score >= pow10(-Double(settings.speechLevel) / 20) else {
            challenger = nil
            return nil
        }
        guard let holder = dominant else {
            dominant = loudest
            return .some(loudest)
        }
        if loudest == holder {
            challenger = nil
            return nil
        }
        let holderSilent = now - (lastSpeech[holder] ?? .min / 2) >= hold
        let louder = score > (current[holder] ?? 0) * settings.switchRatio
        guard holderSilent || louder else {
            challenger = nil
            return nil
        }
        if holderSilent || (challenger?.id == loudest && now - (challenger?.since ?? now) >= hold) {
            dominant = loudest
            challenger = nil
            return .some(loudest)
        }
        if challenger?.id != loudest { challenger = (loudest, now) }
        return nil
    }
}

/// 10^x without Foundation (the target is pure).
func pow10(_ x: Double) -> Double {
    // e^(x ln 10) by its series after splitting off whole powers of ten.
    var whole = x.rounded(.down), fraction = x - whole
    var result = 1.0
    while whole > 0 { result *= 10; whole -= 1 }
    while whole < 0 { result /= 10; whole += 1 }
    let y = fraction * 2.302585092994046
    var term = 1.0, sum = 1.0
    for k in 1..<30 {
        term *= y / Double(k)
        sum += term
    }
    return result * sum
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
