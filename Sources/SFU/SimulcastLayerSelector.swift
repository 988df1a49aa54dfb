/// Which simulcast layer one subscription gets: the highest its path has shown it can carry, within
/// what the subscriber allows (a bitrate ceiling from its bandwidth profile).
///
/// Driven by the receiver's reports on the subscription (RFC 3550 §6.4.1 fraction lost) and
/// time passed in. Loss above `congestedLoss` steps down one layer, then reports are ignored for
/// `settle` (what was queued before the step still arrives late or not at all). A clean path
/// steps up after `probeDelay`; a step up followed by loss within `probeWindow` doubles the
/// delay (to `maxProbeDelay`), and holding a layer for `stableAfter` brings it back to the base.
/// Rank 0 is the smallest layer (`SimulcastLayers.ranked`).
public struct SimulcastLayerSelector: Sendable, Hashable {
    public static let congestedLoss = 0.1
    public static let cleanLoss = 0.02
    public static let settle = 1.5
    public static let baseProbeDelay = 3.0
    public static let maxProbeDelay = 12.0
    public static let probeWindow = 3.0
    public static let stableAfter = 10.0

    /// The highest rank the path carries for now; `Int.max` until the path showed a limit.
    public private(set) var ceiling = Int.max
    /// The subscriber's bitrate ceiling for this track (bits/s), if any.
    public var maxBitrate: Int?
    public private(set) var probeDelay = baseProbeDelay
    private var lastStepDown = -Double.infinity
    private var lastStepUp = -Double.infinity
    private var lastChange = -Double.infinity
    /// Whether every report since the last change was clean.
    private var cleanSinceChange = true
    /// The rank chosen last, for `reported` to step down from.
    public private(set) var current: Int?

    public init(maxBitrate: Int? = nil) {
        self.maxBitrate = maxBitrate
    }

    /// A receiver report on the subscription: `fractionLost` in 0…1.
    public mutating func reported(fractionLost: Double, now: Double) {
        guard now - lastStepDown >= Self.settle else { return }
        if fractionLost > Self.congestedLoss, let current {
            guard current > 0 else { return }  // nothing lower; switching off is the owner's call
            ceiling = current - 1
            if now - lastStepUp <= Self.probeWindow { probeDelay = min(probeDelay * 2, Self.maxProbeDelay) }
            lastStepDown = now
            lastChange = now
            cleanSinceChange = true
        } else if fractionLost > Self.cleanLoss {
            cleanSinceChange = false
        }
    }

    /// The rank to forward now, given the live layers' bitrates (smallest first); nil when none is live.
    public mutating func choose(bitrates: [Int], now: Double) -> Int? {
        guard !bitrates.isEmpty else {
            current = nil
            return nil
        }
        var allowed = bitrates.count - 1
        if let maxBitrate {
            // The largest layer within the subscriber's ceiling; the smallest if none is.
            allowed = bitrates.lastIndex { $0 <= maxBitrate } ?? 0
        }
        if ceiling != Int.max, ceiling < allowed, now - lastChange >= probeDelay {
            if cleanSinceChange {
                ceiling += 1
                lastStepUp = now
            }
            lastChange = now
            cleanSinceChange = true
        }
        if now - lastChange >= Self.stableAfter { probeDelay = Self.baseProbeDelay }
        let rank = min(allowed, ceiling)
        if ceiling != Int.max, ceiling >= bitrates.count - 1, now - lastStepUp >= Self.stableAfter { ceiling = Int.max }
        current = rank
        return rank
    }
}
