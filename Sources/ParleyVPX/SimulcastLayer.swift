import VideoCore

/// One layer of a `VP8SimulcastEncoder`: its RFC 8853 rid, the factor its picture is scaled
/// down by, its size, its share of the bitrate, and whether it is being sent.
public struct SimulcastLayer: Sendable, Equatable {
    /// `q`, `h` or `f` (quarter, half, full resolution), as the SDP's `a=rid` lines name them.
    public let rid: String
    /// 4, 2 or 1.
    public let scaleDownBy: Int
    public let width: Int
    public let height: Int
    /// Target bits per second.
    public internal(set) var bitrate: Int
    /// A paused layer is not encoded (the server uses none of its subscribers' would-be frames).
    public internal(set) var isEnabled: Bool

    /// The standard three layers, lowest first, with their bitrates at a 2.15 Mbit/s maximum
    /// (150k, 500k, 1.5M, the proportions browsers use for 640×360 and up).
    public static let standard: [(rid: String, scaleDownBy: Int, bitrate: Int)] = [("q", 4, 150_000), ("h", 2, 500_000), ("f", 1, 1_500_000)]
}
