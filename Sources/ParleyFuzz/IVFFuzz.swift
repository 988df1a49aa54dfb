import ParleyVPX
import VideoCore

/// Feeds bytes to the IVF file and frame header parsers, `IVFReader` and `IVFVideoReader` (VP8
/// through libvpx): headers that parse round-trip, frames never exceed the input or the limit,
/// and decoding arbitrary frames throws at worst.
enum IVFFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        if let header = try? IVFFileHeader(parsing: bytes[...]) {
            var out: [UInt8] = []
            header.serialize(into: &out)
            precondition(out.count == IVFFileHeader.size && out.count == header.serializedSize, "IVF header size")
            precondition((try? IVFFileHeader(parsing: out[...])) == header, "IVF header does not round-trip")
            precondition(out[..<28].elementsEqual(bytes[..<28]), "IVF header serialized to other bytes")
        }
        if let frameHeader = try? IVFFrameHeader(parsing: bytes[...]) {
            precondition(frameHeader.frameSize <= VideoLimits.maximumCompressedFrame, "IVF frame over the limit")
            var out: [UInt8] = []
            frameHeader.serialize(into: &out)
            precondition(out.elementsEqual(bytes.prefix(IVFFrameHeader.size)), "IVF frame header does not round-trip")
        }
        if var reader = try? IVFReader(source: MemoryByteSource(bytes)) {
            var total = IVFFileHeader.size
            while let frame = try? reader.nextFrame() {
                total += IVFFrameHeader.size + frame.frameSize
                precondition(reader.frame.count == frame.frameSize && total <= bytes.count, "IVF reader invented bytes")
            }
        }
        // Decoding only small pictures keeps each run fast; the size check itself is fuzzed above.
        guard var video = try? IVFVideoReader(source: MemoryByteSource(bytes)),
              video.format.width * video.format.height <= 640 * 480 else { return }
        var frame = I420Frame(width: 1, height: 1)
        var decoded = 0
        while decoded < 16, (try? video.produce(into: &frame)) == true {
            precondition(VideoLimits.accepts(width: frame.width, height: frame.height), "decoded picture outside the limits")
            decoded += 1
        }
    }
}
