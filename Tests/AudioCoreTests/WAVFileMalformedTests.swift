import Testing
import AudioCore

@Suite struct WAVFileMalformedTests {
    private static func pcm16(_ build: (inout WAVTestBytes) -> Void) -> [UInt8] {
        var w = WAVTestBytes()
        build(&w)
        return w.bytes
    }

    @Test(arguments: [
        ([UInt8](), WAVParseError.truncated(needed: 12, available: 0)),
        (Array("RIFF\0\0\0\0WAV".utf8), .truncated(needed: 12, available: 11)),
        (Array("OggS\0\0\0\0WAVEfmt ".utf8), .notRIFF),
        (Array("RIFF\0\0\0\0AVI LIST".utf8), .notWAVE),
        (Array("RIFX\0\0\0\0WAVE".utf8), .unsupportedContainer("RIFX")),
        (Array("RF64\0\0\0\0WAVE".utf8), .unsupportedContainer("RF64")),
    ])
    func rejectsWhatIsNotRIFFWave(bytes: [UInt8], error: WAVParseError) {
        #expect(throws: error) { try WAVFile(parsing: bytes) }
    }

    @Test func requiresFormatAndData() {
        #expect(throws: WAVParseError.missingFormatChunk) {
            try WAVFile(parsing: Self.pcm16 { $0.chunk("data", [0, 0]) })
        }
        #expect(throws: WAVParseError.missingDataChunk) {
            try WAVFile(parsing: Self.pcm16 { $0.fmt(tag: 1, channels: 1, rate: 8_000, bits: 16) })
        }
    }

    @Test func rejectsBadFormatChunks() {
        #expect(throws: WAVParseError.malformedFormatChunk("8 bytes, needs at least 16")) {
            try WAVFile(parsing: Self.pcm16 { $0.chunk("fmt ", [UInt8](repeating: 1, count: 8)); $0.chunk("data", []) })
        }
        #expect(throws: WAVParseError.invalidChannelCount(0)) {
            try WAVFile(parsing: Self.pcm16 { $0.fmt(tag: 1, channels: 0, rate: 8_000, bits: 16); $0.chunk("data", []) })
        }
        #expect(throws: WAVParseError.invalidChannelCount(65)) {
            try WAVFile(parsing: Self.pcm16 { $0.fmt(tag: 1, channels: 65, rate: 8_000, bits: 16); $0.chunk("data", []) })
        }
        #expect(throws: WAVParseError.invalidSampleRate(0)) {
            try WAVFile(parsing: Self.pcm16 { $0.fmt(tag: 1, channels: 1, rate: 0, bits: 16); $0.chunk("data", []) })
        }
        #expect(throws: WAVParseError.unsupportedEncoding(formatTag: 0x55, bitsPerSample: 0)) {   // MP3 in WAV
            try WAVFile(parsing: Self.pcm16 { $0.fmt(tag: 0x55, channels: 1, rate: 8_000, bits: 0); $0.chunk("data", []) })
        }
        #expect(throws: WAVParseError.unsupportedEncoding(formatTag: 3, bitsPerSample: 16)) {
            try WAVFile(parsing: Self.pcm16 { $0.fmt(tag: 3, channels: 1, rate: 8_000, bits: 16); $0.chunk("data", []) })
        }
        #expect(throws: WAVParseError.unsupportedEncoding(formatTag: 1, bitsPerSample: 40)) {
            try WAVFile(parsing: Self.pcm16 { $0.fmt(tag: 1, channels: 1, rate: 8_000, bits: 40); $0.chunk("data", []) })
        }
        var badGUID = Self.pcm16 { $0.extensibleFmt(subTag: 1, channels: 1, rate: 8_000, bits: 16, validBits: 16) }
        badGUID[12 + 8 + 30] ^= 0xFF
        badGUID += Array("data".utf8) + le32(0)
        #expect(throws: WAVParseError.malformedFormatChunk("unknown sub-format GUID")) { try WAVFile(parsing: badGUID) }
    }

    @Test func rejectsAFormatChunkCutOffByTheEnd() {
        let bytes = Array("RIFF\0\0\0\0WAVEfmt ".utf8) + le32(16) + [1, 0, 1, 0]
        #expect(throws: WAVParseError.truncated(needed: 36, available: 24)) { try WAVFile(parsing: bytes) }
    }

    /// Every prefix of a valid file either throws or yields a prefix of its samples.
    @Test func everyTruncationThrowsOrYieldsAPrefix() throws {
        var w = WAVTestBytes()
        w.chunk("LIST", [1, 2, 3])
        w.extensibleFmt(subTag: 1, channels: 2, rate: 8_000, bits: 24, validBits: 24)
        w.chunk("data", (0..<30).map { UInt8($0 * 7 & 0xFF) })
        let full = try WAVFile(parsing: w.bytes)
        #expect(full.samples.count == 10)
        var parsedPrefixes = 0
        for length in 0..<w.bytes.count {
            guard let file = try? WAVFile(parsing: Array(w.bytes.prefix(length))) else { continue }
            #expect(file.samples == Array(full.samples.prefix(file.samples.count)))
            #expect(file.samples.count % 2 == 0)
            parsedPrefixes += 1
        }
        #expect(parsedPrefixes == 30)   // once the data header is complete, each byte count parses
    }

    /// Seeded random bytes, and random corruptions of a valid file, never trap.
    @Test func survivesGarbage() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        var w = WAVTestBytes()
        w.fmt(tag: 1, channels: 1, rate: 8_000, bits: 16)
        w.chunk("data", [UInt8](repeating: 0x11, count: 40))
        var accepted = 0
        for round in 0..<2_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(next() % 96)).map { _ in UInt8(truncatingIfNeeded: next()) }
                if round % 4 == 0, bytes.count >= 12 { bytes.replaceSubrange(0..<4, with: Array("RIFF".utf8)) }
            } else {
                bytes = w.bytes
                for _ in 0..<(1 + next() % 4) {
                    bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next())
                }
            }
            if let file = try? WAVFile(parsing: bytes) {
                #expect(file.samples.count % file.channels == 0)
                accepted += 1
            }
        }
        #expect(accepted > 0)
    }
}
