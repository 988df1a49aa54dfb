#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A histogram of delays that slowly forgets, as WebRTC NetEq's delay manager keeps one of
/// relative packet delays: each new sample scales the old ones by a forget factor and adds the
/// rest of the unit weight to its own bucket, so the weights always sum to about 1 and a quantile
/// reads straight off the cumulative sum. Early samples weigh more (NetEq's start weight), so the
/// first few already give a usable quantile. Buckets are allocated once.
struct JitterBufferDelayHistogram: Sendable {
    /// Bucket width (µs).
    static let bucketMicros: Int64 = 2_000
    /// NetEq's start forget weight: sample n weighs at least 2 / (n + 1).
    static let startForgetWeight = 2.0

    private var buckets: [Double]
    /// Samples added since the start.
    private(set) var count = 0

    /// Room for delays up to `maximum` µs; longer ones land in the last bucket.
    init(maximum: Int64) {
        buckets = [Double](repeating: 0, count: Int(max(maximum, 0) / Self.bucketMicros) + 2)
    }

    /// Adds a delay (µs), first scaling the old weights by `forgetFactor` (or less at the start).
    mutating func add(_ delay: Int64, forgetFactor: Double) {
        let start = max(0, 1 - Self.startForgetWeight / Double(count + 1))
        let forget = min(forgetFactor, start)
        for i in buckets.indices { buckets[i] *= forget }
        buckets[min(Int(max(delay, 0) / Self.bucketMicros), buckets.count - 1)] += 1 - forget
        count += 1
    }

    /// The `q` quantile (µs), as the upper edge of its bucket; 0 before any sample.
    func quantile(_ q: Double) -> Int64 {
        guard count > 0 else { return 0 }
        var sum = 0.0
        for i in buckets.indices {
            sum += buckets[i]
            if sum >= q { return Int64(i + 1) * Self.bucketMicros }
        }
        return Int64(buckets.count) * Self.bucketMicros
    }

    /// The forget factor for a frame of `frames20ms` 20 ms units, from one per 20 ms.
    static func forgetFactor(_ per20ms: Double, frames20ms: Double) -> Double { pow(per20ms, frames20ms) }
}
