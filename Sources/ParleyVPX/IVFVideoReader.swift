import VideoCore

/// An IVF file of VP8 frames as a `VideoFrameProducer`: each compressed frame read by
/// `IVFReader` and decoded by `VP8Decoder` into the caller's frame (planes reused). A frame that
/// does not decode throws `codec`; frames that show nothing are skipped. Timestamps come from
/// the file, converted to the 90 kHz clock.
public struct IVFVideoReader<Source: VideoByteSource>: VideoFrameProducer {
    private var reader: IVFReader<Source>
    private let decoder: VP8Decoder
    public let format: VideoFormat

    /// Reads the file header; the frame rate is the time base's when it is one (libvpx writes
    /// rate/scale = fps), otherwise `fallbackFrameRate`.
    public init(source: Source, fallbackFrameRate: FrameRate = FrameRate(framesPerSecond: 30)) throws(VideoSourceError) {
        reader = try IVFReader(source: source)
        do { decoder = try VP8Decoder() } catch { throw .codec(error.description) }
        let header = reader.header
        format = VideoFormat(width: header.width, height: header.height, frameRate: header.frameRate(fallback: fallbackFrameRate))
    }

    public var header: IVFFileHeader { reader.header }

    public mutating func produce(into frame: inout I420Frame) throws(VideoSourceError) -> Bool {
        while let frameHeader = try reader.nextFrame() {
            let timestamp = Self.ticks90kHz(frameHeader.timestamp, rate: reader.header.timebaseRate, scale: reader.header.timebaseScale)
            do {
                if try decoder.decode(reader.frame, into: &frame, timestamp: timestamp) { return true }
            } catch {
                throw .codec(error.description)
            }
        }
        return false
    }

    public mutating func rewind() throws(VideoSourceError) { try reader.rewind() }

    /// `timestamp` × scale / rate seconds on the 90 kHz clock, wrapping like RTP timestamps.
    static func ticks90kHz(_ timestamp: UInt64, rate: UInt32, scale: UInt32) -> UInt32 {
        let product = timestamp.multipliedFullWidth(by: 90_000 * UInt64(scale))
        let (quotient, _) = UInt64(rate).dividingFullWidth((product.high % UInt64(rate), product.low))
        return UInt32(truncatingIfNeeded: quotient)
    }
}
