import AudioCore

/// WAV files holding G.711 (format tag 7 µ-law, 6 A-law, 8 bits per sample), as telephony tools
/// write them; `WAVFile` reads linear PCM and float only. Same RIFF walk: chunks of id, little-
/// endian size and a body padded to even length; a data chunk longer than the file runs to its end.
enum G711WAV {
    static let aLawTag: UInt16 = 6
    static let muLawTag: UInt16 = 7

    static func isG711(formatTag: UInt16) -> Bool { formatTag == aLawTag || formatTag == muLawTag }

    /// Decodes to 16-bit linear PCM at the file's rate and channel count.
    static func decode(_ bytes: [UInt8]) throws(MediaError) -> WAVFile {
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw MediaError(.unsupportedFormat, "not a RIFF/WAVE file")
        }
        var law: G711.Law?
        var channels = 0, rate = 0
        var data: Range<Int>?
        var offset = 12
        while bytes.count - offset >= 8 {
            let size = Int(le32(bytes, offset + 4))
            let body = offset + 8
            let available = bytes.count - body
            if bytes[offset..<offset + 4].elementsEqual("fmt ".utf8), law == nil {
                guard size >= 16, size <= available else { throw MediaError(.unsupportedFormat, "malformed fmt chunk") }
                let tag = le16(bytes, body)
                guard isG711(formatTag: tag) else { throw MediaError(.unsupportedFormat, "format tag \(tag) is not G.711") }
                law = tag == muLawTag ? .muLaw : .aLaw
                channels = Int(le16(bytes, body + 2))
                rate = Int(le32(bytes, body + 4))
            } else if bytes[offset..<offset + 4].elementsEqual("data".utf8), data == nil {
                data = body..<body + min(size, available)
            }
            let padded = size + (size & 1)
            guard padded < available else { break }
            offset = body + padded
        }
        guard let law, let data else { throw MediaError(.unsupportedFormat, "G.711 WAV without fmt or data chunk") }
        guard (1...WAVFile.maximumChannels).contains(channels), rate > 0 else {
            throw MediaError(.unsupportedFormat, "G.711 WAV with \(channels) channels at \(rate) Hz")
        }
        let count = data.count / channels * channels
        var samples = [Int16](repeating: 0, count: count)
        bytes.withUnsafeBufferPointer { all in
            samples.withUnsafeMutableBufferPointer { out in
                _ = G711.decode(UnsafeBufferPointer(rebasing: all[data.lowerBound..<data.lowerBound + count]), law: law, into: out)
            }
        }
        return WAVFile(sampleRate: rate, channels: channels, samples: samples)
    }

    private static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }

    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
}
