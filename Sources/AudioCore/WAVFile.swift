/// A RIFF/WAVE file's audio: its sample rate, channel count and interleaved 16-bit samples.
///
/// Parsing (`init(parsing:)`, in `WAVFile+Parsing.swift`) accepts 8-bit unsigned, 16/24/32-bit
/// signed PCM and 32/64-bit IEEE float, plain or `WAVE_FORMAT_EXTENSIBLE`, and converts every
/// sample to `Int16`. Serializing (`WAVFile+Serialization.swift`) always writes canonical 16-bit
/// PCM. The value holds the samples in memory; `WAVFileWriter` (AudioDevices) streams long
/// recordings to disk instead.
public struct WAVFile: Hashable, Sendable {
    /// How samples were stored in the parsed file (they are always `Int16` in `samples`).
    public enum SampleEncoding: Hashable, Sendable, CustomStringConvertible {
        /// 8-bit unsigned PCM (128 is silence).
        case unsignedInteger8
        /// Signed little-endian PCM in `containerBits` (16, 24 or 32) bits per sample, of which the
        /// top `validBits` carry the signal.
        case signedInteger(containerBits: Int, validBits: Int)
        /// IEEE 754 float, 32 or 64 bits, full scale at ±1.0.
        case float(bits: Int)

        public var description: String {
            switch self {
            case .unsignedInteger8: "8-bit unsigned PCM"
            case .signedInteger(let container, let valid) where container == valid: "\(container)-bit PCM"
            case .signedInteger(let container, let valid): "\(valid)-bit PCM in \(container)-bit containers"
            case .float(let bits): "\(bits)-bit float"
            }
        }
    }

    /// Samples per second per channel.
    public var sampleRate: Int
    /// Channels per frame; `samples` interleaves them.
    public var channels: Int
    /// Interleaved samples, `frameCount × channels` of them.
    public var samples: [Int16]
    /// The encoding the samples had in the parsed file; `.signedInteger(16, 16)` for built values.
    public var sourceEncoding: SampleEncoding
    /// Whether the parsed file used `WAVE_FORMAT_EXTENSIBLE` (0xFFFE) in its `fmt ` chunk.
    public var wasExtensible: Bool

    /// Audio built in memory (e.g. to be serialized). `samples.count` should be a multiple of `channels`.
    public init(sampleRate: Int, channels: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
        self.sourceEncoding = .signedInteger(containerBits: 16, validBits: 16)
        self.wasExtensible = false
    }

    init(sampleRate: Int, channels: Int, samples: [Int16], sourceEncoding: SampleEncoding, wasExtensible: Bool) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
        self.sourceEncoding = sourceEncoding
        self.wasExtensible = wasExtensible
    }

    /// Whole frames (one sample per channel) in `samples`.
    public var frameCount: Int { channels > 0 ? samples.count / channels : 0 }

    /// Length in seconds.
    public var duration: Double { sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0 }

    /// The file's rate and channels as a device format, 10 ms per buffer unless told otherwise.
    public func audioFormat(framesPerBuffer: Int? = nil) -> AudioFormat {
        AudioFormat(sampleRate: sampleRate, channels: channels, framesPerBuffer: framesPerBuffer)
    }
}
