import VideoCore

/// A `VideoFrameSink` that encodes decoded frames with VP8 and writes them to an `.ivf` file; the
/// first frame fixes the size. For frames that arrive encoded, `IVFFileWriter` writes them as
/// they are.
public final class VP8IVFFileSink: VideoFrameSink {
    private let path: String
    private let bitrate: Int
    private var encoder: VP8Encoder?
    private var writer: IVFFileWriter?

    public init(path: String, bitrate: Int = 1_000_000) {
        self.path = path
        self.bitrate = bitrate
    }

    public func write(_ frame: I420Frame) throws(VideoSourceError) {
        if encoder == nil {
            do { encoder = try VP8Encoder(width: frame.width, height: frame.height, bitrate: bitrate) } catch { throw .codec(error.description) }
            writer = try IVFFileWriter(path: path, width: frame.width, height: frame.height)
        }
        guard let encoder, let writer else { return }
        guard frame.width == encoder.width, frame.height == encoder.height else {
            throw .sizeMismatch(expected: "\(encoder.width)x\(encoder.height)", got: "\(frame.width)x\(frame.height)")
        }
        let encoded: [EncodedVP8Frame]
        do { encoded = try encoder.encode(frame, keyFrame: writer.framesWritten == 0) } catch { throw .codec(error.description) }
        for frame in encoded { try writer.write(frame) }
    }

    public func close() throws(VideoSourceError) { try writer?.close() }
}
