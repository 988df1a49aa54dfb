/// How much video one subscriber's path carries: the budget `VideoAllocator` shares among its
/// subscriptions. Unlimited until the path shows a limit; then set from what was being forwarded
/// when the limit showed, and raised one allocation step at a time while the path stays clean.
///
/// Two signals lower it, both from the subscriber's RTCP: loss in its receiver reports (RFC 3550
/// §6.4.1) above `congestedLoss` (to what was forwarded × (1 − loss / 2), as GCC's loss-based
/// controller does), and a falling receiver estimate (REMB, draft-alvestrand-rmcat-remb-03): a
/// delay-based receiver (libwebrtc, aiortc) lowers its estimate only on overuse, so an estimate
/// that falls below what we forward means queues are building. A rising estimate lags a step up
/// by design (it follows what arrives), so it never lowers the budget.
///
/// After a decrease, signals are ignored for `settle` (what was queued still arrives late or not
/// at all). Two ways up. Where the media path can send padding (`BandwidthProbe`), a step up is
/// tested first (`startProbe`): while the probe runs, the receiver's loss and estimate decide it
/// instead of lowering the budget, and the budget rises to the step only when it passed; after a
/// failed one, signals are ignored for `settle` too (they tell of the probe's padding). Otherwise
/// (`probe`) the budget rises one step after `probeDelay` of clean reports and the step itself is
/// the test; a decrease within `probeWindow` of it doubles the delay (to `maxProbeDelay`),
/// `stableAfter` without a change brings it back. A pure value on time passed in (seconds).
public struct SubscriberBudget: Sendable, Hashable {
    public static let congestedLoss = 0.1
    public static let cleanLoss = 0.02
    public static let settle = 1.5
    public static let baseProbeDelay = 3.0
    public static let maxProbeDelay = 12.0
    public static let probeWindow = 3.0
    public static let stableAfter = 10.0
    /// A receiver estimate this much below its last value is a decrease (not jitter), and it lowers
    /// the budget when it is this share of what we forward or less — unless a layer switch's key
    /// frame went out within `settle` (its burst makes a delay-based estimator dip for a moment).
    /// A low estimate that does not fall lowers nothing: a delay-based estimator lags a step up
    /// (aiortc's for seconds), so only loss tells a path that settled under what we send.
    public static let estimateDrop = 0.95
    public static let estimateOveruse = 0.85
    /// Never below this (bits/s): a budget of nothing would switch everything off for good.
    public static let floor = 30_000
    /// How long after a decrease the path counts as congested (`congested(now:)`).
    public static let congestionMemory = 3.0

    /// The video bits per second the path carries for now; nil until it showed a limit.
    public private(set) var bitrate: Int?
    public private(set) var probeDelay = baseProbeDelay
    /// The receiver's latest estimate (bits/s), if it sends them.
    public private(set) var estimate: Int?
    /// The padding probe before a step up, where the media path sends padding.
    public private(set) var prober = BandwidthProbe()
    private var lastSwitch = -Double.infinity
    private var lastProbeFailure = -Double.infinity
    private var lastDecrease = -Double.infinity
    private var lastIncrease = -Double.infinity
    private var lastChange = -Double.infinity
    private var cleanSinceChange = true

    public init() {}

    /// A receiver report's loss (0…1) on what we forward; `forwarding`: the video bits/s we send now.
    /// `probeRoundTrip`: the round trip of a report that answers the running probe's sender report.
    public mutating func reported(fractionLost: Double, forwarding: Int, probeRoundTrip: Double? = nil, now: Double) {
        if prober.isRunning {
            return judge(prober.feedback(fractionLost: fractionLost, estimate: nil, probeRoundTrip: probeRoundTrip, now: now), now: now)
        }
        guard now - lastDecrease >= Self.settle, now - lastProbeFailure >= Self.settle else { return }
        if fractionLost > Self.congestedLoss {
            decrease(to: Int(Double(forwarding) * (1 - fractionLost / 2)), now: now)
        } else if fractionLost > Self.cleanLoss {
            cleanSinceChange = false
        }
    }

    /// The receiver's estimate (REMB bits/s); `forwarding` as for `reported`.
    public mutating func estimated(_ bitrate: Int, forwarding: Int, now: Double) {
        defer { estimate = bitrate }
        if prober.isRunning { return judge(prober.feedback(fractionLost: nil, estimate: bitrate, now: now), now: now) }
        guard now - lastDecrease >= Self.settle, now - lastSwitch >= Self.settle, now - lastProbeFailure >= Self.settle,
              let last = estimate,
              Double(bitrate) < Double(last) * Self.estimateDrop,
              Double(bitrate) <= Double(forwarding) * Self.estimateOveruse else { return }
        decrease(to: bitrate, now: now)
    }

    /// The allocator needs `needed` bits/s for its next step up: the budget becomes that when the
    /// path has been clean for the probe delay. True when it was raised.
    public mutating func probe(needed: Int, now: Double) -> Bool {
        guard let bitrate, needed > bitrate, now - lastChange >= probeDelay else { return false }
        defer {
            lastChange = now
            cleanSinceChange = true
        }
        guard cleanSinceChange else { return false }
        self.bitrate = needed
        lastIncrease = now
        return true
    }

    /// Starts a padding probe for `needed` bits/s (the allocator's next step; probed with
    /// `BandwidthProbe.headroom`) when the budget falls short of it, the path settled since the
    /// last decrease and switch, and the prober's wait is over. True when it started: the media
    /// path sends `paddingRate` until the verdict.
    public mutating func startProbe(needed: Int, roundTrip: Double?, now: Double) -> Bool {
        guard let bitrate, needed > bitrate, now - lastDecrease >= Self.settle, now - lastSwitch >= Self.settle,
              now - lastProbeFailure >= Self.settle else { return false }
        return prober.start(target: Int(Double(needed) * BandwidthProbe.headroom), estimate: estimate, roundTrip: roundTrip,
                            now: now)
    }

    /// The padding (bits/s) the media path sends now on top of `forwarding` (0 but while a probe's
    /// cluster lasts).
    public func paddingRate(forwarding: Int, now: Double) -> Int { prober.paddingRate(forwarding: forwarding, now: now) }

    /// A subscription switched layers (a key frame goes out): estimates are not read for `settle`.
    public mutating func switched(now: Double) {
        lastSwitch = now
    }

    /// Whether the path showed congestion (loss above `congestedLoss`, or a falling estimate under
    /// what we forward) within `congestionMemory`: `detected` switch-off waits for it.
    public func congested(now: Double) -> Bool { now - lastDecrease <= Self.congestionMemory }

    /// Once per allocation: a budget held without a decrease for `stableAfter` resets the probe delay.
    public mutating func tick(now: Double) {
        if now - lastDecrease >= Self.stableAfter { probeDelay = Self.baseProbeDelay }
        judge(prober.tick(now: now), now: now)
    }

    /// A probe's verdict: passed, the budget becomes what it tested; failed, what follows is its doing.
    private mutating func judge(_ verdict: BandwidthProbe.Verdict?, now: Double) {
        switch verdict {
        case .passed(let target)?:
            bitrate = max(bitrate ?? 0, target)
            lastIncrease = now
            lastChange = now
            cleanSinceChange = true
        case .failed?:
            lastProbeFailure = now
        case nil:
            break
        }
    }

    private mutating func decrease(to target: Int, now: Double) {
        bitrate = max(min(target, bitrate ?? Int.max), Self.floor)
        if now - lastIncrease <= Self.probeWindow { probeDelay = min(probeDelay * 2, Self.maxProbeDelay) }
        lastDecrease = now
        lastChange = now
        cleanSinceChange = true
        prober.congested(now: now)
    }
}
