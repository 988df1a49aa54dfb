import Testing
import AudioCore

/// Builds WAV bytes chunk by chunk, so tests can write any format and any malformation.
struct WAVTestBytes {
    var bytes: [UInt8] = []

    init(riffSize: UInt32? = nil) {
        bytes = Array("RIFF".utf8) + le32(riffSize ?? 0) + Array("WAVE".utf8)
        fixRIFFSize = riffSize == nil
    }

    private var fixRIFFSize: Bool

    /// A chunk with `body`, padded to even length unless `pad` is false; `size` overrides the stated size.
    mutating func chunk(_ id: String, _ body: [UInt8], size: UInt32? = nil, pad: Bool = true) {
        bytes += Array(id.utf8) + le32(size ?? UInt32(body.count)) + body
        if pad && body.count % 2 == 1 { bytes.append(0) }
        if fixRIFFSize { bytes.replaceSubrange(4..<8, with: le32(UInt32(bytes.count - 8))) }
    }

    mutating func fmt(tag: UInt16, channels: Int, rate: Int, bits: Int, blockAlign: Int? = nil) {
        let align = blockAlign ?? channels * ((bits + 7) / 8)
        chunk("fmt ", le16(tag) + le16(UInt16(channels)) + le32(UInt32(rate)) + le32(UInt32(rate * align))
              + le16(UInt16(align)) + le16(UInt16(bits)))
    }

    /// WAVE_FORMAT_EXTENSIBLE with sub-format `subTag` (1 PCM, 3 float).
    mutating func extensibleFmt(subTag: UInt16, channels: Int, rate: Int, bits: Int, validBits: Int) {
        let align = channels * bits / 8
        let guidTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        chunk("fmt ", le16(0xFFFE) + le16(UInt16(channels)) + le32(UInt32(rate)) + le32(UInt32(rate * align))
              + le16(UInt16(align)) + le16(UInt16(bits)) + le16(22) + le16(UInt16(validBits)) + le32(0x4)
              + le16(subTag) + guidTail)
    }
}

func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

@Suite struct WAVFileTests {
    static let ramp: [Int16] = [0, 1, -1, 256, -256, 12_345, -12_345, .max, .min, 300]

    @Test func roundTripsSixteenBitPCM() throws {
        let original = WAVFile(sampleRate: 16_000, channels: 2, samples: Self.ramp)
        let bytes = original.serialized
        #expect(bytes.count == 44 + 20)
        #expect(bytes.count == original.serializedSize)
        let parsed = try WAVFile(parsing: bytes)
        #expect(parsed == original)
        #expect(parsed.frameCount == 5)
        #expect(parsed.duration == 5.0 / 16_000)
    }

    @Test func writesTheCanonicalHeader() {
        let header = WAVFile.pcm16Header(sampleRate: 48_000, channels: 1, dataByteCount: 960)
        let expected: [UInt8] = Array("RIFF".utf8) + le32(996) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1)
            + le32(48_000) + le32(96_000) + le16(2) + le16(16) + Array("data".utf8) + le32(960)
        #expect(header == expected)
        let streaming = WAVFile.pcm16Header(sampleRate: 8_000, channels: 2, dataByteCount: nil)
        #expect(Array(streaming[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Array(streaming[40..<44]) == [0xFF, 0xFF, 0xFF, 0xFF])
    }

    @Test func readsEightBitUnsigned() throws {
        var w = WAVTestBytes()
        w.fmt(tag: 1, channels: 1, rate: 8_000, bits: 8)
        w.chunk("data", [128, 0, 255, 129, 127])      // odd length: padded
        let file = try WAVFile(parsing: w.bytes)
        #expect(file.samples == [0, -32_768, 32_512, 256, -256])
        #expect(file.sourceEncoding == .unsignedInteger8)
    }

    @Test func readsTwentyFourBitByKeepingTheTopSixteenBits() throws {
        var w = WAVTestBytes()
        w.fmt(tag: 1, channels: 1, rate: 48_000, bits: 24)
        w.chunk("data", [0x00, 0x34, 0x12, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x80, 0xFF, 0xFF, 0x7F])
        let file = try WAVFile(parsing: w.bytes)
        #expect(file.samples == [0x1234, -1, .min, .max])
        #expect(file.sourceEncoding == .signedInteger(containerBits: 24, validBits: 24))
    }

    @Test func readsThirtyTwoBitPCM() throws {
        var w = WAVTestBytes()
        w.fmt(tag: 1, channels: 2, rate: 44_100, bits: 32)
        w.chunk("data", le32(0x1234_5678) + le32(UInt32(bitPattern: -65_536)))
        let file = try WAVFile(parsing: w.bytes)
        #expect(file.samples == [0x1234, -1])
        #expect(file.channels == 2 && file.frameCount == 1)
    }

    @Test func readsThirtyTwoBitFloatScaledRoundedAndClamped() throws {
        var w = WAVTestBytes()
        w.fmt(tag: 3, channels: 1, rate: 16_000, bits: 32)
        let values: [Float] = [0, 0.5, -0.5, 1.0, -1.0, 2.5, -7, .nan, 1.0 / 32_768, 0.000_01]
        w.chunk("data", values.flatMap { le32($0.bitPattern) })
        let file = try WAVFile(parsing: w.bytes)
        #expect(file.samples == [0, 16_384, -16_384, .max, .min, .max, .min, 0, 1, 0])
        #expect(file.sourceEncoding == .float(bits: 32))
    }

    @Test func readsSixtyFourBitFloat() throws {
        var w = WAVTestBytes()
        w.fmt(tag: 3, channels: 1, rate: 16_000, bits: 64)
        w.chunk("data", [0.25, -0.25].flatMap { le64(($0 as Double).bitPattern) })
        #expect(try WAVFile(parsing: w.bytes).samples == [8_192, -8_192])
    }

    @Test func readsExtensiblePCMAndFloat() throws {
        var pcm = WAVTestBytes()
        pcm.extensibleFmt(subTag: 1, channels: 2, rate: 96_000, bits: 24, validBits: 20)
        pcm.chunk("data", [0x00, 0x00, 0x40, 0x00, 0x00, 0xC0])
        let a = try WAVFile(parsing: pcm.bytes)
        #expect(a.wasExtensible && a.channels == 2 && a.sampleRate == 96_000)
        #expect(a.samples == [0x4000, -0x4000])
        #expect(a.sourceEncoding == .signedInteger(containerBits: 24, validBits: 20))

        var float = WAVTestBytes()
        float.extensibleFmt(subTag: 3, channels: 1, rate: 48_000, bits: 32, validBits: 32)
        float.chunk("data", le32(Float(0.25).bitPattern))
        let b = try WAVFile(parsing: float.bytes)
        #expect(b.samples == [8_192] && b.sourceEncoding == .float(bits: 32) && b.wasExtensible)
    }

    @Test func skipsUnknownAndOddSizedChunksAnywhere() throws {
        var w = WAVTestBytes()
        w.chunk("LIST", Array("INFOISFT\u{5}\0\0\0Lavf\0".utf8))   // odd-sized: padded
        w.chunk("junk", [1, 2, 3])
        w.fmt(tag: 1, channels: 1, rate: 8_000, bits: 16)
        w.chunk("fact", le32(2))
        w.chunk("data", le16(7) + le16(0xFFF9))
        w.chunk("id3 ", [9])
        #expect(try WAVFile(parsing: w.bytes).samples == [7, -7])
    }

    @Test func acceptsFormatAfterData() throws {
        var w = WAVTestBytes()
        w.chunk("data", le16(42))
        w.fmt(tag: 1, channels: 1, rate: 8_000, bits: 16)
        #expect(try WAVFile(parsing: w.bytes).samples == [42])
    }

    @Test func readsStreamingSizesToTheEndOfTheFile() throws {
        var w = WAVTestBytes(riffSize: 0xFFFF_FFFF)
        w.fmt(tag: 1, channels: 1, rate: 8_000, bits: 16)
        w.chunk("data", le16(1) + le16(2) + le16(3), size: 0xFFFF_FFFF)
        #expect(try WAVFile(parsing: w.bytes).samples == [1, 2, 3])
    }

    @Test func truncatesADataChunkLongerThanTheFileToWholeFrames() throws {
        var w = WAVTestBytes()
        w.fmt(tag: 1, channels: 2, rate: 8_000, bits: 16)
        w.chunk("data", le16(1) + le16(2) + le16(3), size: 1_000)   // 1.5 frames present
        let file = try WAVFile(parsing: w.bytes)
        #expect(file.samples == [1, 2])
    }

    @Test func usesAWiderContainerDeclaredByBlockAlign() throws {
        var w = WAVTestBytes()
        w.fmt(tag: 1, channels: 1, rate: 8_000, bits: 24, blockAlign: 4)   // 24 bits in 32-bit slots
        w.chunk("data", le32(0x7FFF_0000) + le32(0x8000_0000))
        let file = try WAVFile(parsing: w.bytes)
        #expect(file.samples == [.max, .min])
        #expect(file.sourceEncoding == .signedInteger(containerBits: 32, validBits: 24))
    }

    @Test func providesTheDeviceFormat() {
        let file = WAVFile(sampleRate: 16_000, channels: 2, samples: [])
        #expect(file.audioFormat() == AudioFormat(sampleRate: 16_000, channels: 2, framesPerBuffer: 160))
        #expect(file.audioFormat(framesPerBuffer: 320).framesPerBuffer == 320)
    }

    @Test func encodesLittleEndianSamplesForStreaming() {
        let samples: [Int16] = [0x0102, -2]
        var out = [UInt8](repeating: 0, count: 4)
        let written = samples.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBytes { WAVFile.encodePCM16(s, into: $0) }
        }
        #expect(written == 4 && out == [0x02, 0x01, 0xFE, 0xFF])
    }
}
