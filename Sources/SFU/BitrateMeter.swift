/// Bits per second of one stream over whole windows of `window` seconds: the rate of the last
/// complete window, 0 before one completed. Allocates nothing; the packet path calls `add`.
public struct BitrateMeter: Sendable, Hashable {
    /// The window length (seconds).
    public static let window = 1.0

    public private(set) var bitrate = 0
    public private(set) var lastPacketAt = -Double.infinity
    private var windowStart = -Double.infinity
    private var windowBytes = 0

    public init() {}

    /// `bytes` of payload arrived at `now`.
    public mutating func add(bytes: Int, now: Double) {
        roll(now: now)
        windowBytes += bytes
        lastPacketAt = now
    }

    /// Closes the window if it is over (a silent stream's rate falls to 0 at the next window).
    public mutating func roll(now: Double) {
        guard now - windowStart >= Self.window else { return }
        // The first window (from -∞) has no length: the rate stays 0 until one completes.
        let elapsed = now - windowStart
        bitrate = elapsed.isFinite ? Int(Double(windowBytes * 8) / elapsed) : 0
        windowBytes = 0
        windowStart = now
    }

    /// Whether a packet arrived within `seconds` of `now`.
    public func isLive(now: Double, within seconds: Double) -> Bool { now - lastPacketAt <= seconds }
}
