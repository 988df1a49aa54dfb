// RIFF/WAVE parsing (Microsoft "Multimedia Programming Interface and Data Specifications 1.0",
// RIFF chunks; WAVE_FORMAT_EXTENSIBLE from "Multiple Channel Audio Data and WAVE Files").
//
// Layout: "RIFF" size "WAVE", then chunks of id (4 bytes), little-endian size (4 bytes), body
// padded to an even length. The `fmt ` chunk gives the format, `data` the samples; other chunks
// (LIST, fact, cue, …) are skipped. The RIFF size is not trusted: streaming tools write
// 0xFFFFFFFF or 0 there and in the data size, so a data chunk longer than the file runs to its end.

extension WAVFile {
    /// Most channels a parsed file may have (WAVE_FORMAT_EXTENSIBLE names 18 speaker positions).
    public static let maximumChannels = 64

    /// Parses a whole WAV file. Throws `WAVParseError` for anything it cannot read; never traps.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(WAVParseError) {
        guard bytes.count >= 12 else { throw .truncated(needed: 12, available: bytes.count) }
        let container = bytes.fourCC(at: 0)
        guard container == "RIFF" else {
            if container == "RIFX" || container == "RF64" { throw .unsupportedContainer(container) }
            throw .notRIFF
        }
        guard bytes.fourCC(at: 8) == "WAVE" else { throw .notWAVE }

        var format: FormatChunk?
        var data: Range<Int>?
        var offset = 12
        while bytes.count - offset >= 8 {
            let id = bytes.fourCC(at: offset)
            let size = Int(bytes.littleEndianUInt32(at: offset + 4))
            let body = offset + 8
            let available = bytes.count - body
            switch id {
            case "data":
                if data == nil { data = body..<body + min(size, available) }
            case "fmt ":
                guard size <= available else { throw .truncated(needed: body + size, available: bytes.count) }
                if format == nil {
                    format = try FormatChunk(UnsafeRawBufferPointer(rebasing: bytes[body..<body + size]))
                }
            default:
                break
            }
            // Bodies are padded to an even length; a chunk running past the end ends the walk.
            let padded = size + (size & 1)
            guard padded < available else { break }
            offset = body + padded
        }
        guard let format else { throw .missingFormatChunk }
        guard let data else { throw .missingDataChunk }
        self = Self.decode(UnsafeRawBufferPointer(rebasing: bytes[data]), format: format)
    }

    /// Parses a whole WAV file held in an array.
    public init(parsing bytes: [UInt8]) throws(WAVParseError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(WAVParseError) in try WAVFile(parsing: raw) }
        }
        self = try result.get()
    }

    /// Converts whole frames of `data` to `Int16`; a trailing partial frame is dropped.
    private static func decode(_ data: UnsafeRawBufferPointer, format: FormatChunk) -> WAVFile {
        let width = format.bytesPerSample
        let frames = data.count / (width * format.channels)
        let count = frames * format.channels
        let samples = [Int16](unsafeUninitializedCapacity: count) { out, initialized in
            for i in 0..<count {
                out[i] = sample(data, at: i * width, encoding: format.encoding, width: width)
            }
            initialized = count
        }
        return WAVFile(sampleRate: format.sampleRate, channels: format.channels, samples: samples,
                       sourceEncoding: format.encoding, wasExtensible: format.isExtensible)
    }

    /// One sample as Int16: integers keep their top 16 bits (left-justified containers), floats
    /// are scaled by 32 768, rounded and clamped (NaN is silence).
    @inline(__always)
    private static func sample(_ data: UnsafeRawBufferPointer, at offset: Int, encoding: SampleEncoding,
                               width: Int) -> Int16 {
        switch encoding {
        case .unsignedInteger8:
            return (Int16(data[offset]) - 128) << 8
        case .signedInteger:
            let top = offset + width - 2
            return Int16(bitPattern: UInt16(data[top]) | UInt16(data[top + 1]) << 8)
        case .float(let bits):
            let value = bits == 64
                ? Double(bitPattern: data.littleEndianUInt64(at: offset))
                : Double(Float(bitPattern: data.littleEndianUInt32(at: offset)))
            return floatToInt16(value)
        }
    }

    /// Full scale ±1.0 maps to ±32 768, rounded to nearest and saturated to the Int16 range.
    static func floatToInt16(_ value: Double) -> Int16 {
        guard !value.isNaN else { return 0 }
        let scaled = (value * 32_768).rounded()
        if scaled >= 32_767 { return .max }
        if scaled <= -32_768 { return .min }
        return Int16(scaled)
    }
}

/// The fields of a `fmt ` chunk this parser needs, validated.
private struct FormatChunk {
    static let pcm: UInt16 = 0x0001
    static let ieeeFloat: UInt16 = 0x0003
    static let extensible: UInt16 = 0xFFFE
    /// Bytes 2…15 of KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT (xxxxxxxx-0000-0010-8000-00AA00389B71)
    /// as stored little-endian; bytes 0…1 carry the format tag.
    static let subtypeGUIDTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00,
                                           0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    var channels: Int
    var sampleRate: Int
    var encoding: WAVFile.SampleEncoding
    var bytesPerSample: Int
    var isExtensible: Bool

    init(_ body: UnsafeRawBufferPointer) throws(WAVParseError) {
        guard body.count >= 16 else { throw .malformedFormatChunk("\(body.count) bytes, needs at least 16") }
        var tag = body.littleEndianUInt16(at: 0)
        channels = Int(body.littleEndianUInt16(at: 2))
        sampleRate = Int(body.littleEndianUInt32(at: 4))
        let blockAlign = Int(body.littleEndianUInt16(at: 12))
        let bits = Int(body.littleEndianUInt16(at: 14))
        var validBits = bits
        isExtensible = tag == Self.extensible
        if isExtensible {
            // cbSize (2) + valid bits (2) + channel mask (4) + sub-format GUID (16) after the 16 bytes.
            guard body.count >= 40 else { throw .malformedFormatChunk("extensible fmt of \(body.count) bytes, needs 40") }
            let declaredValid = Int(body.littleEndianUInt16(at: 18))
            if declaredValid > 0 { validBits = declaredValid }
            guard validBits <= bits else { throw .malformedFormatChunk("\(validBits) valid bits in \(bits)-bit samples") }
            guard body[26..<40].elementsEqual(Self.subtypeGUIDTail) else {
                throw .malformedFormatChunk("unknown sub-format GUID")
            }
            tag = body.littleEndianUInt16(at: 24)
        }
        guard channels > 0, channels <= WAVFile.maximumChannels else { throw .invalidChannelCount(channels) }
        guard sampleRate > 0 else { throw .invalidSampleRate(sampleRate) }

        switch (tag, bits) {
        case (Self.pcm, 1...8) where !isExtensible || bits == 8:
            encoding = .unsignedInteger8
            bytesPerSample = 1
        case (Self.pcm, 9...32):
            // Non-byte sizes (12, 20 bits) sit left-justified in whole bytes; a few writers use a
            // wider container than the bits need (24 in 32), which `blockAlign` reveals.
            let needed = (bits + 7) / 8
            let declared = blockAlign % channels == 0 ? blockAlign / channels : 0
            bytesPerSample = (needed...4).contains(declared) ? declared : needed
            guard !isExtensible || bits % 8 == 0 else {
                throw .malformedFormatChunk("extensible container of \(bits) bits is not whole bytes")
            }
            encoding = .signedInteger(containerBits: bytesPerSample * 8, validBits: validBits)
        case (Self.ieeeFloat, 32), (Self.ieeeFloat, 64):
            encoding = .float(bits: bits)
            bytesPerSample = bits / 8
        default:
            throw .unsupportedEncoding(formatTag: tag, bitsPerSample: bits)
        }
    }
}

extension UnsafeRawBufferPointer {
    /// Four bytes as ASCII text (non-ASCII bytes become U+FFFD); callers check `offset + 4 <= count`.
    fileprivate func fourCC(at offset: Int) -> String {
        String(decoding: self[offset..<offset + 4], as: UTF8.self)
    }

    fileprivate func littleEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    fileprivate func littleEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16
            | UInt32(self[offset + 3]) << 24
    }

    fileprivate func littleEndianUInt64(at offset: Int) -> UInt64 {
        UInt64(littleEndianUInt32(at: offset)) | UInt64(littleEndianUInt32(at: offset + 4)) << 32
    }
}
