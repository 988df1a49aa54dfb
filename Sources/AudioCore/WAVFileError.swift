/// Why bytes are not a WAV file `WAVFile(parsing:)` can read. The parser throws one of these for any
/// input it cannot use and never traps.
public enum WAVParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the 12-byte RIFF header, or a `fmt ` chunk cut off by the end of the file.
    case truncated(needed: Int, available: Int)
    /// The file does not start with `RIFF`.
    case notRIFF
    /// A RIFF file whose form type is not `WAVE`.
    case notWAVE
    /// A WAVE variant this parser does not read (`RIFX` big-endian, `RF64`).
    case unsupportedContainer(String)
    /// No `fmt ` chunk before the end of the file.
    case missingFormatChunk
    /// No `data` chunk before the end of the file.
    case missingDataChunk
    /// A `fmt ` chunk too short or inconsistent with itself.
    case malformedFormatChunk(String)
    /// Zero channels, or more than `WAVFile.maximumChannels`.
    case invalidChannelCount(Int)
    /// A sample rate of zero.
    case invalidSampleRate(Int)
    /// A format tag / sample size combination other than PCM 1…32 bits or float 32/64 bits.
    case unsupportedEncoding(formatTag: UInt16, bitsPerSample: Int)

    public var description: String {
        switch self {
        case .truncated(let needed, let available): "WAV truncated: needed \(needed) bytes, \(available) available"
        case .notRIFF: "not a WAV file: no RIFF header"
        case .notWAVE: "not a WAV file: RIFF form type is not WAVE"
        case .unsupportedContainer(let id): "unsupported WAV container \(id) (only little-endian RIFF)"
        case .missingFormatChunk: "WAV has no fmt chunk"
        case .missingDataChunk: "WAV has no data chunk"
        case .malformedFormatChunk(let why): "malformed WAV fmt chunk: \(why)"
        case .invalidChannelCount(let n): "WAV channel count \(n) is not supported"
        case .invalidSampleRate(let rate): "WAV sample rate \(rate) is not valid"
        case .unsupportedEncoding(let tag, let bits):
            "unsupported WAV encoding: format tag 0x\(String(tag, radix: 16)), \(bits) bits per sample"
        }
    }
}
