/// Tests a subscriber's path before a step up, as libwebrtc's probe controller and LiveKit's
/// prober do: for `cluster` seconds the SFU sends padding on top of what it forwards, so the path
/// carries the rate the step needs (`target`) without the step itself — no key frame, no new
/// layer for the receiver to drop. The receiver's own feedback is the verdict. A falling estimate
/// (REMB from a delay-based estimator: queues built under the padding) or loss in a receiver
/// report (RFC 3550 §6.4.1) fails the probe at once, and the padding stops. An estimate at the
/// target passes it. Otherwise the verdict waits for the report that answers the sender report
/// sent as the cluster ends (its LSR, §6.4.1): the round trip it measures went through whatever
/// queue the padding built, so one within `queueTolerance` of the round trip before the probe,
/// with clean loss, passes it; a longer one fails it. (A delay-based estimate already under what
/// the path carries cannot fall under over-use — the receiver sets it to 0.85 × what arrives — so
/// REMB alone cannot pass a probe.) No verdict within `timeout` fails it too.
///
/// A failed probe doubles the wait before the next one, from `baseDelay` to `maxDelay` (each costs
/// the path a moment of queueing); one that passed brings it back to `baseDelay`.
///
/// A pure value on time passed in (seconds); the media path asks `paddingRate` how much to send.
public struct BandwidthProbe: Sendable, Hashable {
    /// Seconds of padding at the target rate.
    public static let cluster = 0.5
    /// A step is probed at its rate × this (`SubscriberBudget.startProbe`): a layer's measured
    /// bitrate wanders by that much from one second to the next, and a budget that only just held
    /// the step when it was probed would drop it again at the next allocation.
    public static let headroom = 1.2
    /// A probe with no verdict this long after it started failed (a receiver reports every 0.5–1.5 s).
    public static let timeout = 3.0
    /// The round trip through the probed path may exceed the one before the probe by this much (seconds).
    public static let queueTolerance = 0.05
    public static let baseDelay = 1.0
    public static let maxDelay = 2.5
    /// Loss above this in a report during the probe fails it (receiver reports carry 1/256 steps).
    public static let cleanLoss = 0.02
    /// An estimate below the one before × this is a fall (not jitter).
    public static let estimateDrop = 0.95

    /// How a probe ended.
    public enum Verdict: Sendable, Hashable {
        /// The path carried `target` bits/s: the budget may rise to it.
        case passed(target: Int)
        case failed
    }

    /// The rate (bits/s) the running probe tests, nil when none runs.
    public private(set) var target: Int?
    public private(set) var startedAt = -Double.infinity
    /// The wait after a probe before the next may start (doubled on failure).
    public private(set) var delay = baseDelay
    /// When the next probe may start.
    public private(set) var nextAt = -Double.infinity
    /// Probes passed and failed so far.
    public private(set) var passed = 0
    public private(set) var failed = 0
    private var lastEstimate: Int?
    private var baselineRoundTrip: Double?

    public init() {}

    /// Whether a probe runs (sending padding or waiting for its verdict).
    public var isRunning: Bool { target != nil }

    /// Starts a probe of `target` bits/s when none runs and the wait is over; `estimate`: the
    /// receiver's latest (a fall is judged from it); `roundTrip`: the latest round trip (seconds),
    /// which the probe's may exceed by `queueTolerance`. True when it started.
    public mutating func start(target: Int, estimate: Int?, roundTrip: Double?, now: Double) -> Bool {
        guard self.target == nil, now >= nextAt, target > 0 else { return false }
        self.target = target
        startedAt = now
        lastEstimate = estimate
        baselineRoundTrip = roundTrip
        return true
    }

    /// Whether the cluster is over (the media path then sends its sender report, once).
    public func clusterEnded(now: Double) -> Bool { target != nil && now - startedAt >= Self.cluster }

    /// The padding (bits/s) to send on top of `forwarding` now: the difference to the target while
    /// the cluster lasts, else 0.
    public func paddingRate(forwarding: Int, now: Double) -> Int {
        guard let target, now - startedAt < Self.cluster else { return 0 }
        return max(target - forwarding, 0)
    }

    /// The receiver's feedback while a probe runs: a report's loss (0…1), its estimate (bits/s),
    /// and, from a report answering the sender report sent as the cluster ended, the round trip
    /// it measured (seconds). The verdict, when this decides it.
    public mutating func feedback(fractionLost: Double?, estimate: Int?, probeRoundTrip: Double? = nil,
                                  now: Double) -> Verdict? {
        guard let target else { return nil }
        defer { if let estimate { lastEstimate = estimate } }
        if let fractionLost, fractionLost > Self.cleanLoss { return finish(passed: false, now: now) }
        if let estimate {
            if estimate >= target { return finish(passed: true, now: now) }
            if let last = lastEstimate, Double(estimate) < Double(last) * Self.estimateDrop { return finish(passed: false, now: now) }
        }
        guard let probeRoundTrip else { return nil }
        return finish(passed: probeRoundTrip <= (baselineRoundTrip ?? 0) + Self.queueTolerance, now: now)
    }

    /// Once per allocation: a probe without a verdict for `timeout` failed.
    public mutating func tick(now: Double) -> Verdict? {
        guard target != nil, now - startedAt >= Self.timeout else { return nil }
        return finish(passed: false, now: now)
    }

    /// The path showed congestion outside a probe (the budget fell): the next probe waits `delay`
    /// from now; a running one ends without a verdict.
    public mutating func congested(now: Double) {
        target = nil
        nextAt = max(nextAt, now + delay)
    }

    private mutating func finish(passed ok: Bool, now: Double) -> Verdict {
        let tested = target ?? 0
        target = nil
        if ok {
            passed += 1
            delay = Self.baseDelay
        } else {
            failed += 1
            delay = min(delay * 2, Self.maxDelay)
        }
        nextAt = now + delay
        return ok ? .passed(target: tested) : .failed
    }
}
