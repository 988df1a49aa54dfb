#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The target delay of a `JitterBuffer`, following measured jitter the way WebRTC NetEq's delay
/// manager does.
///
/// Each packet's transit time (arrival minus the RTP timestamp as time) is compared with the
/// fastest packet of the last two seconds: the difference is its relative delay, the time it
/// would have had to wait for had everything come as fast. Relative delays go into a histogram
/// that slowly forgets (a forget factor of 0.983 per 20 ms of audio, as NetEq), and the target is
/// its 95th percentile, clamped to [minimum, maximum]. The target rises as soon as the quantile
/// does (fast attack) and falls towards it with a one-second time constant (slow decay).
struct JitterBufferDelayEstimator: Sendable {
    /// How far back the fastest packet is looked for (NetEq: 2 s).
    static let windowMicros: Int64 = 2_000_000
    /// Histogram resolution.
    static let bucketMicros: Int64 = 2_000
    /// NetEq's forget factor per 20 ms packet; early packets weigh more (start weight 2).
    static let forgetFactorPer20ms = 0.983
    static let startForgetWeight = 2.0
    /// Time constant of the target's decay.
    static let decayMicros = 1_000_000.0
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

    private var buckets: [Double]
    private var updates = 0
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
        buckets = [Double](repeating: 0, count: Int(maximum / Self.bucketMicros) + 2)
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

    /// Records a packet (late ones too: they are what the target must cover).
    mutating func update(arrival: Int64, timestamp: Int64, duration: Int) {
        let transit = arrival - micros(timestamp)
        push(arrival: arrival, transit: transit)
        let relative = max(0, transit - (minTransit ?? transit))
        lastRelativeDelay = relative

        // Histogram with forgetting (NetEq's relative-delay histogram).
        let frames20ms = Double(max(duration, 1)) / (Double(clockRate) / 50)
        let base = pow(Self.forgetFactorPer20ms, frames20ms)
        let start = max(0, 1 - Self.startForgetWeight / Double(updates + 1))
        let forget = min(base, start)
        for i in buckets.indices { buckets[i] *= forget }
        let index = min(Int(relative / Self.bucketMicros), buckets.count - 1)
        buckets[index] += 1 - forget
        updates += 1

        let measured = min(max(quantileValue(), minimum), maximum)
        if measured >= target {
            target = measured
        } else if let lastUpdate {
            let elapsed = Double(max(arrival - lastUpdate, 0))
            let alpha = 1 - exp(-elapsed / Self.decayMicros)
            target -= Int64((Double(target - measured) * alpha).rounded(.up))
        }
        lastUpdate = arrival
    }

    /// Forgets the transit window (a new timeline: SSRC change or timestamp jump); the histogram
    /// and the target stay, the network path is likely the same.
    mutating func resetWindow() {
        windowHead = 0
        windowCount = 0
    }

    /// The histogram's quantile, as the upper edge of its bucket (µs).
    private func quantileValue() -> Int64 {
        var sum = 0.0
        for i in buckets.indices {
            sum += buckets[i]
            if sum >= quantile { return Int64(i + 1) * Self.bucketMicros }
        }
        return Int64(buckets.count) * Self.bucketMicros
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
