/// The 12 bytes before each IVF frame: the frame's size (32-bit) and timestamp (64-bit, in the
/// file's time base), little-endian (libvpx ivfenc.c `ivf_write_frame_header`). Pure.
public struct IVFFrameHeader: Sendable, Equatable {
    public static let size = 12

    public var frameSize: Int
    public var timestamp: UInt64

    public init(frameSize: Int, timestamp: UInt64) {
        self.frameSize = frameSize
        self.timestamp = timestamp
    }

    /// Parses the first 12 bytes; a frame larger than `VideoLimits.maximumCompressedFrame` throws
    /// before anyone allocates for it.
    public init(parsing bytes: ArraySlice<UInt8>) throws(VideoContainerError) {
        guard bytes.count >= Self.size else { throw .truncated }
        let b = bytes.startIndex
        let size = LittleEndian.u32(bytes, b)
        guard size <= VideoLimits.maximumCompressedFrame else { throw .tooLarge("frame of \(size) bytes") }
        frameSize = Int(size)
        timestamp = UInt64(LittleEndian.u32(bytes, b + 4)) | UInt64(LittleEndian.u32(bytes, b + 8)) << 32
    }

    public func serialize(into out: inout [UInt8]) {
        LittleEndian.append(UInt32(clamping: frameSize), to: &out)
        LittleEndian.append(UInt32(truncatingIfNeeded: timestamp), to: &out)
        LittleEndian.append(UInt32(truncatingIfNeeded: timestamp >> 32), to: &out)
    }

    public var serializedSize: Int { Self.size }
}
