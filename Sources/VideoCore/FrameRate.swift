/// A frame rate as a fraction (Y4M's `F30000:1001`, IVF's rate/scale), so NTSC rates stay exact.
public struct FrameRate: Sendable, Equatable, CustomStringConvertible {
    /// Frames per `denominator` seconds.
    public let numerator: Int
    public let denominator: Int

    /// Refuses rates that are not positive, above 1000 fps, or below one frame an hour.
    public init?(numerator: Int, denominator: Int = 1) {
        guard numerator > 0, denominator > 0, numerator <= 1_000_000_000, denominator <= 1_000_000_000,
              numerator / denominator <= 1000, denominator / numerator < 3600 else { return nil }
        self.numerator = numerator
        self.denominator = denominator
    }

    /// `fps` whole frames a second (1…1000, clamped).
    public init(framesPerSecond fps: Int) {
        numerator = min(max(fps, 1), 1000)
        denominator = 1
    }

    public var framesPerSecond: Double { Double(numerator) / Double(denominator) }

    /// Frame `index`'s presentation time on the 90 kHz RTP video clock (RFC 3551 §5), wrapping
    /// as RTP timestamps do.
    public func timestamp90kHz(ofFrame index: Int64) -> UInt32 {
        UInt32(truncatingIfNeeded: index.multipliedReportingOverflow(by: 90_000 * Int64(denominator)).partialValue / Int64(numerator))
    }

    /// When frame `index` is due, in nanoseconds from the first frame (no drift over long runs;
    /// saturates instead of overflowing after centuries).
    public func nanoseconds(ofFrame index: Int64) -> Int64 {
        let perRate = Int64(denominator) * 1_000_000_000
        let whole = (index / Int64(numerator)).multipliedReportingOverflow(by: perRate)
        let part = index % Int64(numerator) * (perRate / Int64(numerator))
        guard !whole.overflow, whole.partialValue <= Int64.max - part else { return .max }
        return whole.partialValue + part
    }

    public var description: String { denominator == 1 ? "\(numerator) fps" : "\(numerator)/\(denominator) fps" }
}
