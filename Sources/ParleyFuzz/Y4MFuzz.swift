import VideoCore

/// Feeds bytes to the Y4M stream header parser and `Y4MReader`: a header that parses must
/// serialize and parse back equal, and the reader, whatever follows the header, yields whole
/// frames of the header's size or throws; it never traps or reads past the input.
enum Y4MFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        if let header = try? Y4MHeader(parsing: bytes[...]) {
            precondition(VideoLimits.accepts(width: header.width, height: header.height), "Y4M size outside the limits")
            var out: [UInt8] = []
            header.serialize(into: &out)
            precondition(out.count == header.serializedSize, "Y4M serializedSize disagrees with serialize")
            guard let again = try? Y4MHeader(parsing: out[...]) else { preconditionFailure("Y4M parser refused its own header") }
            precondition(again == header, "Y4M header does not round-trip")
            // Frames are read only when the input could hold one (a 16383×512 header costs 12 MB).
            guard header.frameByteCount <= bytes.count else { return }
        }
        guard var reader = try? Y4MReader(source: MemoryByteSource(bytes)) else { return }
        var frame = I420Frame(width: 1, height: 1)
        var frames = 0
        while (try? reader.produce(into: &frame)) == true {
            precondition(frame.width == reader.header.width && frame.height == reader.header.height, "Y4M frame of another size")
            frames += 1
            precondition(frames * reader.header.frameByteCount <= bytes.count, "Y4M reader invented frames")
        }
    }
}
