/// Size limits a parser enforces before buffering more input.
public struct HTTPLimits: Sendable, Hashable {
    /// Bytes of start line plus header fields, including CRLFs.
    public var maxHeaderBytes: Int
    /// Number of header fields.
    public var maxHeaderCount: Int
    /// Decoded body bytes.
    public var maxBodyBytes: Int
    /// Bytes of one chunk-size line, extensions included, or one trailer line.
    public var maxChunkLineBytes: Int

    public init(maxHeaderBytes: Int = 16 * 1024, maxHeaderCount: Int = 100, maxBodyBytes: Int = 8 * 1024 * 1024,
                maxChunkLineBytes: Int = 1024) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkLineBytes = maxChunkLineBytes
    }
}
