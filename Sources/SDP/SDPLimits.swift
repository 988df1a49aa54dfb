/// Size limits checked before any parsing work, so abusive input is refused cheaply.
public struct SDPLimits: Sendable, Hashable {
    /// The largest accepted input in bytes.
    public var maxBytes: Int
    /// The most lines accepted.
    public var maxLines: Int
    /// The most `m=` sections accepted.
    public var maxMediaSections: Int

    /// Creates limits; the defaults are far above what browsers produce (a Chromium audio, video
    /// and data offer is about 6 KB and 200 lines).
    public init(maxBytes: Int = 256 * 1024, maxLines: Int = 16_384, maxMediaSections: Int = 512) {
        self.maxBytes = maxBytes
        self.maxLines = maxLines
        self.maxMediaSections = maxMediaSections
    }

    /// 256 KB, 16384 lines, 512 media sections.
    public static let `default` = SDPLimits()
}
