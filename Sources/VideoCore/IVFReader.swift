/// Reads an IVF file's compressed frames in order: the file header, then each frame's header
/// and bytes, into one buffer reused across frames (grown only for a larger frame, bounded by
/// `VideoLimits.maximumCompressedFrame` and by the bytes really present). Works on any `VideoByteSource`.
public struct IVFReader<Source: VideoByteSource> {
    public let header: IVFFileHeader
    private var source: Source
    private var headerBytes = [UInt8](repeating: 0, count: IVFFrameHeader.size)
    /// The last frame read (valid until the next `nextFrame`).
    public private(set) var frame: [UInt8] = []
    /// Frames read since the start (or the last rewind).
    public private(set) var frameIndex = 0

    /// Reads and checks the file header.
    public init(source: Source) throws(VideoSourceError) {
        var source = source
        var bytes = [UInt8](repeating: 0, count: IVFFileHeader.size)
        let complete = try bytes.withMutableBytes { (p) throws(VideoSourceError) -> Bool in try source.readFully(into: p) }
        guard complete else { throw .malformed(.truncated) }
        do { header = try IVFFileHeader(parsing: bytes[...]) } catch { throw .malformed(error) }
        self.source = source
    }

    /// The next frame's header, its bytes in `frame`; nil at a clean end of file. A frame cut
    /// short throws `truncated`.
    public mutating func nextFrame() throws(VideoSourceError) -> IVFFrameHeader? {
        var first = true
        var got = 0
        while got < IVFFrameHeader.size {
            let n = try headerBytes.withMutableBytes { (p) throws(VideoSourceError) -> Int in
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: p[got...]))
            }
            if n == 0 {
                if first { return nil }
                throw .malformed(.truncated)
            }
            first = false
            got += n
        }
        let frameHeader: IVFFrameHeader
        do { frameHeader = try IVFFrameHeader(parsing: headerBytes[...]) } catch { throw .malformed(error) }
        // Filled a chunk at a time, so a header that lies about the size costs no more memory
        // than the bytes really there (the capacity is kept for the next frame).
        frame.removeAll(keepingCapacity: true)
        var remaining = frameHeader.frameSize
        while remaining > 0 {
            let chunk = min(remaining, 1 << 16), before = frame.count
            frame.append(contentsOf: repeatElement(0, count: chunk))
            let complete = try frame.withMutableBytes { (p) throws(VideoSourceError) -> Bool in
                try source.readFully(into: UnsafeMutableRawBufferPointer(rebasing: p[before...]))
            }
            guard complete else { throw .malformed(.truncated) }
            remaining -= chunk
        }
        frameIndex += 1
        return frameHeader
    }

    /// Back to the first frame.
    public mutating func rewind() throws(VideoSourceError) {
        try source.seek(to: IVFFileHeader.size)
        frameIndex = 0
    }
}
