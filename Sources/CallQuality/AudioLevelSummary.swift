#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Audio level readings of one sampling interval, kept as count, sum and sum of squares so that
/// a window of intervals yields the mean and the standard deviation of all its readings without
/// storing them (twilio.js flattens its per-second volume arrays for the same figure).
///
/// Levels are linear amplitudes in 0…1, where 1 is a full-scale signal (0 dBov), as WebRTC's
/// `audioLevel` stat; twilio.js's 0…32767 scale is this × 32767.
public struct AudioLevelSummary: Sendable, Hashable, Codable {
    public private(set) var count: Int = 0
    public private(set) var sum: Double = 0
    public private(set) var sumOfSquares: Double = 0

    /// No readings.
    public init() {}

    /// One reading.
    public init(level: Double) { add(level) }

    /// Several readings.
    public init(levels: some Sequence<Double>) { for level in levels { add(level) } }

    /// Adds one reading (clamped to 0…1; NaN is ignored).
    public mutating func add(_ level: Double) {
        guard !level.isNaN else { return }
        let x = min(max(level, 0), 1)
        count += 1
        sum += x
        sumOfSquares += x * x
    }

    /// Adds every reading of `other`.
    public mutating func merge(_ other: AudioLevelSummary) {
        count += other.count
        sum += other.sum
        sumOfSquares += other.sumOfSquares
    }

    /// The mean level, or nil without readings.
    public var mean: Double? { count > 0 ? sum / Double(count) : nil }

    /// The population standard deviation of the readings, or nil without readings.
    public var standardDeviation: Double? {
        guard count > 0 else { return nil }
        let mean = sum / Double(count)
        return max(sumOfSquares / Double(count) - mean * mean, 0).squareRoot()
    }

    /// The mean level in dBov (20·log10), floored at −127 dB as RFC 6464 §3 does; nil without readings.
    public var meanDecibels: Double? { mean.map(Self.decibels) }

    /// `level` (0…1) in dBov, floored at −127 dB.
    public static func decibels(_ level: Double) -> Double {
        level > 0 ? max(20 * log10(level), -127) : -127
    }
}
