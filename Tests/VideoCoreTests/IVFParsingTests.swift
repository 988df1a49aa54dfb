import Testing
import VideoCore

/// IVF file and frame headers (libvpx ivfenc.c layout) and `IVFReader` over memory: round trips,
/// bad headers, truncation and lying frame sizes throw.
@Suite struct IVFParsingTests {
    static func file(frames: [[UInt8]], header: IVFFileHeader = IVFFileHeader(width: 640, height: 360)) -> [UInt8] {
        var out: [UInt8] = []
        header.serialize(into: &out)
        for (index, frame) in frames.enumerated() {
            IVFFrameHeader(frameSize: frame.count, timestamp: UInt64(index) * 3000).serialize(into: &out)
            out += frame
        }
        return out
    }

    @Test func fileHeaderLayoutAndRoundTrip() throws {
        var bytes: [UInt8] = []
        let header = IVFFileHeader(width: 640, height: 360, timebaseRate: 30, timebaseScale: 1, frameCount: 7)
        header.serialize(into: &bytes)
        #expect(bytes.count == 32 && header.serializedSize == 32)
        #expect(Array(bytes[0..<12]) == Array("DKIF".utf8) + [0, 0, 32, 0] + Array("VP80".utf8))
        #expect(Array(bytes[12..<16]) == [0x80, 0x02, 0x68, 0x01], "640 and 360, little-endian")
        #expect(Array(bytes[24..<28]) == [7, 0, 0, 0])
        let parsed = try IVFFileHeader(parsing: bytes[...])
        #expect(parsed == header)
        #expect(parsed.frameRate(fallback: FrameRate(framesPerSecond: 25)) == FrameRate(framesPerSecond: 30))
        #expect(IVFFileHeader(width: 2, height: 2).frameRate(fallback: FrameRate(framesPerSecond: 25)) == FrameRate(framesPerSecond: 25),
                "a 90 kHz clock is not a frame rate")
    }

    @Test func badFileHeadersThrow() {
        var good: [UInt8] = []
        IVFFileHeader(width: 64, height: 64).serialize(into: &good)
        func mutated(_ at: Int, _ values: UInt8...) -> [UInt8] { var b = good; b.replaceSubrange(at..<(at + values.count), with: values); return b }
        #expect(throws: VideoContainerError.truncated) { try IVFFileHeader(parsing: good.prefix(31)) }
        #expect(throws: VideoContainerError.badSignature) { try IVFFileHeader(parsing: mutated(0, 0x41)[...]) }
        #expect(throws: VideoContainerError.unsupportedIVF("version 1")) { try IVFFileHeader(parsing: mutated(4, 1)[...]) }
        #expect(throws: VideoContainerError.unsupportedIVF("header size 64")) { try IVFFileHeader(parsing: mutated(6, 64)[...]) }
        #expect(throws: VideoContainerError.unsupportedIVF("codec VP90")) { try IVFFileHeader(parsing: mutated(10, 0x39)[...]) }
        #expect(throws: VideoContainerError.tooLarge("picture 0x64")) { try IVFFileHeader(parsing: mutated(12, 0)[...]) }
        #expect(throws: VideoContainerError.invalidParameter("time base")) { try IVFFileHeader(parsing: mutated(16, 0, 0, 0, 0)[...]) }
    }

    @Test func frameHeaderRoundTripAndLimit() throws {
        var bytes: [UInt8] = []
        let header = IVFFrameHeader(frameSize: 1234, timestamp: 0x1_0000_0002)
        header.serialize(into: &bytes)
        #expect(bytes == [0xD2, 0x04, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0])
        #expect(try IVFFrameHeader(parsing: bytes[...]) == header)
        #expect(throws: VideoContainerError.truncated) { try IVFFrameHeader(parsing: bytes.prefix(11)) }
        #expect(throws: VideoContainerError.self) { try IVFFrameHeader(parsing: [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0][...]) }
    }

    @Test func readerYieldsFramesAndStopsCleanly() throws {
        let frames: [[UInt8]] = [[1, 2, 3], Array(repeating: 9, count: 70_000), [], [4]]
        var reader = try IVFReader(source: MemoryByteSource(Self.file(frames: frames)))
        #expect(reader.header.width == 640 && reader.header.height == 360)
        var read: [[UInt8]] = [], timestamps: [UInt64] = []
        while let header = try reader.nextFrame() {
            read.append(reader.frame)
            timestamps.append(header.timestamp)
        }
        #expect(read == frames)
        #expect(timestamps == [0, 3000, 6000, 9000])
        try reader.rewind()
        #expect(try reader.nextFrame()?.frameSize == 3)
    }

    @Test func truncatedAndLyingFramesThrow() throws {
        let whole = Self.file(frames: [[1, 2, 3, 4]])
        for cut in [whole.count - 1, whole.count - 4, 32 + 5] {
            var reader = try IVFReader(source: MemoryByteSource(Array(whole.prefix(cut))))
            #expect(throws: VideoSourceError.malformed(.truncated)) { try reader.nextFrame() }
        }
        // A frame header claiming 16 MiB with 4 bytes behind it: refused without allocating 16 MiB.
        var lying = Array(whole.prefix(32))
        IVFFrameHeader(frameSize: VideoLimits.maximumCompressedFrame, timestamp: 0).serialize(into: &lying)
        lying += [1, 2, 3, 4]
        var reader = try IVFReader(source: MemoryByteSource(lying))
        #expect(throws: VideoSourceError.malformed(.truncated)) { try reader.nextFrame() }
        #expect(reader.frame.capacity < 1 << 20)
        #expect(throws: VideoSourceError.malformed(.truncated)) { try IVFReader(source: MemoryByteSource([0x44, 0x4B])) }
    }
}
