#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The target delay of a `JitterBuffer`, following measured jitter the way WebRTC NetEq's delay
/// manager does, and covering loss recovery when packets are being lost.
///
/// Each packet's transit time (arrival minus the RTP timestamp as time) is compared with the
/// fastest packet of the last two seconds: the difference is its relative delay, the time it
/// would have had to wait for had everything come as fast. Relative delays go into a histogram
/// that slowly forgets (a forget factor of 0.983 per 20 ms of audio, as NetEq), and the target is
/// its 95th percentile, clamped to [minimum, maximum].
///
/// A frame whose own packet is lost is only available when a later packet brings a copy of it
/// (a RED block, RFC 2198) or its in-band FEC (RFC 6716 §2.1.7): its effective arrival is that
/// packet's. These recovery delays go into a second histogram, and while recoveries are recent
/// (at least `activeRecoveryRate` of the frames) the target also covers `recoveryQuantile` of them,
/// so that under loss and jitter the copies arrive in time; when loss stops, the rate decays and
/// the target falls back to the packets' own jitter.
///
/// The target rises as soon as the measured value does (fast attack) and falls towards it with a
/// one-second time constant (slow decay), five seconds while loss is active.
struct JitterBufferDelayEstimator: Sendable {
    /// How far back the fastest packet is looked for (NetEq: 2 s).
    static let windowMicros: Int64 = 2_000_000
    /// NetEq's forget factor per 20 ms packet.
    static let forgetFactorPer20ms = 0.983
    /// Forget factor per recovered frame: about the last fifty recoveries count.
    static let recoveryForgetFactor = 0.98
    /// The share of recoveries the target covers while loss is active: 90 %, which keeps the
    /// delay p95 under 60 ms at 10 % loss and 30 ms jitter (95 % took it to 64 ms on the real call
    /// path for 0.1 more PESQ-WB; issue 15).
    static let recoveryQuantile = 0.9
    /// The recovery rate is averaged over about this many frames (2 s of 20 ms frames)...
    static let recoveryRateFrames = 100.0
    /// ...and loss counts as active above this rate (one recovery in the last ~70 frames).
    static let activeRecoveryRate = 0.005
    /// Time constant of the target's decay; while loss is active, the slower one (the recoveries'
    /// quantile dips between rare double losses, and every return costs a time stretch).
    static let decayMicros = 1_000_000.0
    static let lossDecayMicros = 5_000_000.0
    private static let windowCapacity = 512

    let clockRate: Int64
    let minimum: Int64
    let maximum: Int64
    let quantile: Double

    /// Monotonic deque of (arrival, transit) with increasing transits: the front is the fastest
    /// packet of the window. Fixed ring storage.
    private var windowArrivals: [Int64]
    private var windowTransits: [Int64]
    private var windowHead = 0
    private var windowCount = 0

    private var arrivals: JitterBufferDelayHistogram
    private var recoveries: JitterBufferDelayHistogram
    /// Recovered frames per frame, exponentially averaged over `recoveryRateFrames`.
    private(set) var recoveryRate = 0.0
    private var lastUpdate: Int64?
    /// The target delay in microseconds.
    private(set) var target: Int64
    /// The last packet's relative delay in microseconds.
    private(set) var lastRelativeDelay: Int64 = 0

    init(configuration: JitterBufferConfiguration) {
        clockRate = Int64(configuration.clockRate)
        minimum = Int64(configuration.minimumDelayMs) * 1_000
        maximum = Int64(configuration.maximumDelayMs) * 1_000
        quantile = configuration.quantile
        target = Int64(configuration.initialDelayMs) * 1_000
        windowArrivals = [Int64](repeating: 0, count: Self.windowCapacity)
        windowTransits = [Int64](repeating: 0, count: Self.windowCapacity)
        arrivals = JitterBufferDelayHistogram(maximum: maximum)
        recoveries = JitterBufferDelayHistogram(maximum: maximum)
    }

    /// The fastest transit of the window (µs): arrival minus timestamp-as-time of the fastest packet.
    var minTransit: Int64? { windowCount > 0 ? windowTransits[windowHead] : nil }

    /// An unwrapped RTP timestamp as microseconds.
    func micros(_ timestamp: Int64) -> Int64 { timestamp * 1_000_000 / clockRate }

    /// How long after the fastest path's arrival the frame starting at `timestamp` plays if it is
    /// played at `time`: the playout delay the target applies to. Nil before any packet.
    func playoutDelay(of timestamp: Int64, at time: Int64) -> Int64? {
        guard let minTransit else { return nil }
        return time - micros(timestamp) - minTransit
    }

    /// True while recoveries are frequent enough for the target to cover them.
    var lossIsActive: Bool { recoveryRate >= Self.activeRecoveryRate }

    /// Records a packet (late ones too: they are what the target must cover).
    mutating func update(arrival: Int64, timestamp: Int64, duration: Int) {
        let transit = arrival - micros(timestamp)
        push(arrival: arrival, transit: transit)
        let relative = max(0, transit - (minTransit ?? transit))
        lastRelativeDelay = relative
        let frames20ms = Double(max(duration, 1)) / (Double(clockRate) / 50)
        arrivals.add(relative, forgetFactor: JitterBufferDelayHistogram.forgetFactor(Self.forgetFactorPer20ms,
                                                                                    frames20ms: frames20ms))
        recoveryRate *= JitterBufferDelayHistogram.forgetFactor(1 - 1 / Self.recoveryRateFrames, frames20ms: frames20ms)

        let measured = measuredTarget()
        if measured >= target {
            target = measured
        } else if let lastUpdate {
            let elapsed = Double(max(arrival - lastUpdate, 0))
            let alpha = 1 - exp(-elapsed / (lossIsActive ? Self.lossDecayMicros : Self.decayMicros))
            target -= Int64((Double(target - measured) * alpha).rounded(.up))
        }
        lastUpdate = arrival
    }

    /// Records a frame that became available only at `arrival`, through a later packet (a RED copy
    /// or FEC), whether or not that was in time for its playout. Raises the target at once if the
    /// recoveries now need more; lowering is left to the packets' updates (slow decay).
    mutating func recordRecovery(arrival: Int64, timestamp: Int64) {
        guard let minTransit else { return }
        recoveries.add(arrival - micros(timestamp) - minTransit, forgetFactor: Self.recoveryForgetFactor)
        recoveryRate += 1 / Self.recoveryRateFrames
        target = max(target, measuredTarget())
    }

    /// The packets' quantile, or the recoveries' when loss is active and they need more; clamped.
    private func measuredTarget() -> Int64 {
        var measured = arrivals.quantile(quantile)
        if lossIsActive { measured = max(measured, recoveries.quantile(Self.recoveryQuantile)) }
        return min(max(measured, minimum), maximum)
    }

    /// Forgets the transit window (a new timeline: SSRC change or timestamp jump); the histogram
    /// and the target stay, the network path is likely the same.
    mutating func resetWindow() {
        windowHead = 0
        windowCount = 0
    }

    private mutating func push(arrival: Int64, transit: Int64) {
        let capacity = Self.windowCapacity
        // Drop packets older than the window from the front, slower ones than this from the back.
        while windowCount > 0, windowArrivals[windowHead] < arrival - Self.windowMicros {
            windowHead = (windowHead + 1) % capacity
            windowCount -= 1
        }
        while windowCount > 0, windowTransits[(windowHead + windowCount - 1) % capacity] >= transit {
            windowCount -= 1
        }
        if windowCount == capacity {
            windowHead = (windowHead + 1) % capacity
            windowCount -= 1
        }
        let slot = (windowHead + windowCount) % capacity
        windowArrivals[slot] = arrival
        windowTransits[slot] = transit
        windowCount += 1
    }
}
