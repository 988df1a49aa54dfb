/// Keeps the latest frame it was given and writes it as a PNG on request (`--snapshot-every`,
/// a renderer's snapshot). The frame is kept by reference (copy-on-write), not copied.
public final class PNGSnapshotSink: VideoFrameSink {
    private var encoder = PNGEncoder()
    /// The last frame written, nil before the first.
    public private(set) var latest: I420Frame?

    public init() {}

    public func write(_ frame: I420Frame) throws(VideoSourceError) { latest = frame }

    public func close() throws(VideoSourceError) {}

    /// The latest frame as PNG bytes; nil before the first frame.
    public func snapshot() -> [UInt8]? {
        guard let latest else { return nil }
        return encoder.encode(latest)
    }

    /// Writes the latest frame to `path` as PNG; false before the first frame.
    @discardableResult
    public func writeSnapshot(to path: String) throws(VideoSourceError) -> Bool {
        guard let png = snapshot() else { return false }
        let file = try FileByteSink(path: path)
        defer { file.close() }
        try file.write(png)
        return true
    }
}
