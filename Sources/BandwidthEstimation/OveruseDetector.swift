/// What the delay-based detector concludes about the path (draft-ietf-rmcat-gcc-02 §5.4).
public enum BandwidthUsage: Sendable, Hashable {
    case normal
    case overusing
    case underusing
}

/// The arrival-time filter of draft-ietf-rmcat-gcc-02 §5.3 as a trendline (the form libwebrtc
/// replaced the Kalman filter with): the queuing delay accumulated over groups, smoothed, and the
/// slope of a least-squares line through the last `window` of it against arrival time — how fast
/// queues grow, in ms per ms. Fixed storage: no allocation per group.
public struct DelayTrendline: Sendable, Hashable {
    public static let window = 20
    /// Exponential smoothing of the accumulated delay.
    static let smoothing = 0.9

    var times = [Double](repeating: 0, count: window)
    var delays = [Double](repeating: 0, count: window)
    var count = 0
    var next = 0
    var firstArrival: Double?
    var accumulated = 0.0
    var smoothed = 0.0
    /// The latest slope; 0 until the window has filled.
    public private(set) var slope = 0.0
    /// Groups seen (it scales the slope for the detector, at most `DelayOveruseDetector.maxDeltas`).
    public private(set) var deltas = 0

    public init() {}

    /// One group's delay variation d(i) = arrival delta − send delta (§5.1), at `arrival` ms.
    public mutating func add(_ delta: PacketGroups.Delta, arrival: Double) {
        let first = firstArrival ?? arrival
        firstArrival = first
        deltas = min(deltas + 1, DelayOveruseDetector.maxDeltas)
        accumulated += delta.arrival - delta.send
        smoothed = Self.smoothing * smoothed + (1 - Self.smoothing) * accumulated
        times[next] = arrival - first
        delays[next] = smoothed
        next = (next + 1) % Self.window
        count = min(count + 1, Self.window)
        if count == Self.window, let fitted = Self.fit(times, delays) { slope = fitted }
    }

    /// The least-squares slope of `y` on `x`; nil when every x is the same.
    static func fit(_ x: [Double], _ y: [Double]) -> Double? {
        var meanX = 0.0, meanY = 0.0
        for i in x.indices {
            meanX += x[i]
            meanY += y[i]
        }
        meanX /= Double(x.count)
        meanY /= Double(y.count)
        var numerator = 0.0, denominator = 0.0
        for i in x.indices {
            numerator += (x[i] - meanX) * (y[i] - meanY)
            denominator += (x[i] - meanX) * (x[i] - meanX)
        }
        return denominator > 0 ? numerator / denominator : nil
    }
}

/// The over-use detector of draft-ietf-rmcat-gcc-02 §5.4: the trend (scaled by the groups seen and
/// a gain, so it reads in ms like the draft's m(i)) against an adaptive threshold del_var_th. Over
/// it for more than `overuseTime` (and at least two groups) while still rising: overusing; under
/// its negative: underusing. The threshold follows |m| (§5.4 K_u, K_d), except for outliers more
/// than `maxAdaptOffset` past it, within [`minThreshold`, `maxThreshold`].
public struct DelayOveruseDetector: Sendable, Hashable {
    static let maxDeltas = 60
    static let trendGain = 4.0
    static let overuseTime = 10.0
    static let maxAdaptOffset = 15.0
    static let minThreshold = 6.0
    static let maxThreshold = 600.0
    /// Per ms, as libwebrtc tunes them for the trendline: up when |m| is over the threshold, down under it.
    static let thresholdUp = 0.0087
    static let thresholdDown = 0.039

    public private(set) var usage = BandwidthUsage.normal
    /// del_var_th, ms (§5.4 starts it at 12.5).
    public private(set) var threshold = 12.5
    var overusedFor: Double?
    var overuses = 0
    var previousTrend = 0.0
    var lastUpdate: Double?

    public init() {}

    /// The trendline after a group whose send delta was `sendDelta` ms, at `now` ms.
    public mutating func detect(_ trendline: DelayTrendline, sendDelta: Double, now: Double) -> BandwidthUsage {
        guard trendline.deltas >= 2 else { return usage }
        let m = Double(trendline.deltas) * trendline.slope * Self.trendGain
        if m > threshold {
            overusedFor = overusedFor.map { $0 + sendDelta } ?? sendDelta / 2
            overuses += 1
            if let time = overusedFor, time > Self.overuseTime, overuses > 1, m >= previousTrend {
                overusedFor = 0
                overuses = 0
                usage = .overusing
            }
        } else if m < -threshold {
            overusedFor = nil
            overuses = 0
            usage = .underusing
        } else {
            overusedFor = nil
            overuses = 0
            usage = .normal
        }
        previousTrend = m
        adaptThreshold(m, now: now)
        return usage
    }

    /// §5.4: del_var_th(i) = del_var_th(i-1) + Δt · K · (|m(i)| − del_var_th(i-1)), Δt at most 100 ms.
    mutating func adaptThreshold(_ m: Double, now: Double) {
        let last = lastUpdate ?? now
        lastUpdate = now
        guard abs(m) <= threshold + Self.maxAdaptOffset else { return }
        let k = abs(m) < threshold ? Self.thresholdDown : Self.thresholdUp
        // At most all the way to |m| (with groups a frame apart, K · Δt passes 1).
        let step = min(k * min(max(now - last, 0), 100), 1)
        threshold = min(max(threshold + step * (abs(m) - threshold), Self.minThreshold), Self.maxThreshold)
    }
}
