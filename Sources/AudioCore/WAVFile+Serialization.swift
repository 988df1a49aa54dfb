// Canonical 16-bit PCM WAV: a 44-byte header ("RIFF" size "WAVE", a 16-byte `fmt ` chunk with
// format tag 1, a `data` chunk) followed by little-endian samples.

extension WAVFile {
    /// Bytes in the canonical header written before the samples.
    public static let pcm16HeaderSize = 44

    /// The largest data size a RIFF header can state; bigger sizes are written as this (and the
    /// parser reads such a data chunk to the end of the file).
    public static let maximumDataSize = Int(UInt32.max) - 36

    /// The header of a 16-bit PCM file holding `dataByteCount` bytes of samples. A streaming writer
    /// writes it first with `nil` (sizes 0xFFFFFFFF, "until the end of the file") and rewrites the
    /// sizes when it closes.
    public static func pcm16Header(sampleRate: Int, channels: Int, dataByteCount: Int?) -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(pcm16HeaderSize)
        let dataSize = dataByteCount.map { UInt32(clamping: min($0, maximumDataSize)) } ?? UInt32.max
        let riffSize = dataByteCount.map { UInt32(clamping: min($0, maximumDataSize) + 36) } ?? UInt32.max
        let blockAlign = UInt16(clamping: channels * 2)
        header += Array("RIFF".utf8)
        appendLittleEndian(riffSize, to: &header)
        header += Array("WAVEfmt ".utf8)
        appendLittleEndian(UInt32(16), to: &header)
        appendLittleEndian(UInt16(1), to: &header)                     // WAVE_FORMAT_PCM
        appendLittleEndian(UInt16(clamping: channels), to: &header)
        appendLittleEndian(UInt32(clamping: sampleRate), to: &header)
        appendLittleEndian(UInt32(clamping: sampleRate * channels * 2), to: &header)  // byte rate
        appendLittleEndian(blockAlign, to: &header)
        appendLittleEndian(UInt16(16), to: &header)                    // bits per sample
        header += Array("data".utf8)
        appendLittleEndian(dataSize, to: &header)
        return header
    }

    /// Offsets of the two sizes a streaming writer patches when it closes: the RIFF size (file
    /// length − 8) and the data size.
    public static let pcm16HeaderRIFFSizeOffset = 4
    public static let pcm16HeaderDataSizeOffset = 40

    /// Bytes `serialize(into:)` appends.
    public var serializedSize: Int { Self.pcm16HeaderSize + frameCount * channels * 2 }

    /// Appends the file as canonical 16-bit PCM (whole frames only), whatever it was parsed from.
    public func serialize(into bytes: inout [UInt8]) {
        let count = frameCount * channels
        bytes.reserveCapacity(bytes.count + Self.pcm16HeaderSize + count * 2)
        bytes += Self.pcm16Header(sampleRate: sampleRate, channels: channels, dataByteCount: count * 2)
        for sample in samples.prefix(count) {
            Self.appendLittleEndian(UInt16(bitPattern: sample), to: &bytes)
        }
    }

    /// The file as canonical 16-bit PCM bytes.
    public var serialized: [UInt8] {
        var bytes: [UInt8] = []
        serialize(into: &bytes)
        return bytes
    }

    /// Writes `samples` as little-endian 16-bit bytes into `output` (which must hold
    /// `2 × samples.count` bytes); returns the bytes written. For streaming writers.
    public static func encodePCM16(_ samples: UnsafeBufferPointer<Int16>, into output: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(samples.count, output.count / 2)
        for i in 0..<count {
            let value = UInt16(bitPattern: samples[i])
            output[2 * i] = UInt8(truncatingIfNeeded: value)
            output[2 * i + 1] = UInt8(truncatingIfNeeded: value >> 8)
        }
        return count * 2
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        for i in 0..<(T.bitWidth / 8) { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }
}
