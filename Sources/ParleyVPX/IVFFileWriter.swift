import VideoCore

/// Writes VP8 frames to an `.ivf` file (libvpx's container, 90 kHz time base: frames keep their
/// RTP timestamps, unwrapped and counted from the first frame). The header's frame count is
/// filled in by `close()`. One owner.
///
/// MediaContainers' `IVFWriter` writes the same layout for the server's track recordings; this
/// one is the SDK side's, on VideoCore's `IVFFileHeader` (which also parses).
public final class IVFFileWriter {
    private let file: FileByteSink
    private var scratch: [UInt8] = []
    private var first: UInt32?
    private var last: (timestamp: UInt32, position: Int64) = (0, 0)
    public private(set) var framesWritten = 0
    private var closed = false

    public init(path: String, width: Int, height: Int) throws(VideoSourceError) {
        file = try FileByteSink(path: path)
        IVFFileHeader(width: width, height: height).serialize(into: &scratch)
        try file.write(scratch)
    }

    /// Appends one frame at its 90 kHz timestamp.
    public func write(_ frame: EncodedVP8Frame) throws(VideoSourceError) {
        try write(frame.data, timestamp: frame.timestamp)
    }

    public func write(_ data: [UInt8], timestamp: UInt32) throws(VideoSourceError) {
        // Signed 32-bit differences unwrap the RTP clock (RFC 3550 §5.1).
        let position: Int64
        if first == nil {
            first = timestamp
            position = 0
        } else {
            position = max(0, last.position + Int64(Int32(bitPattern: timestamp &- last.timestamp)))
        }
        last = (timestamp, position)
        scratch.removeAll(keepingCapacity: true)
        IVFFrameHeader(frameSize: data.count, timestamp: UInt64(position)).serialize(into: &scratch)
        scratch += data
        try file.write(scratch)
        framesWritten += 1
    }

    /// Writes the frame count into the header and closes the file. Idempotent.
    public func close() throws(VideoSourceError) {
        guard !closed else { return }
        closed = true
        var count: [UInt8] = []
        for i in 0..<4 { count.append(UInt8(truncatingIfNeeded: framesWritten >> (8 * i))) }
        try file.write(count, at: 24)
        file.close()
    }
}
