/// Bounds every reader applies before allocating, so a hostile file costs bounded memory.
public enum VideoLimits {
    /// Widest and tallest picture accepted (VP8 codes 14 bits: 16383; RFC 6386 §9.1).
    public static let maximumDimension = 16_383
    /// Largest picture accepted, in pixels (8K UHD).
    public static let maximumPixels = 7_680 * 4_320
    /// Largest compressed frame an IVF reader accepts, in bytes.
    public static let maximumCompressedFrame = 16 << 20
    /// Longest Y4M stream or frame header line, in bytes.
    public static let maximumHeaderLine = 4_096

    /// Whether a picture of this size is within the limits.
    public static func accepts(width: Int, height: Int) -> Bool {
        width > 0 && height > 0 && width <= maximumDimension && height <= maximumDimension && width * height <= maximumPixels
    }
}
