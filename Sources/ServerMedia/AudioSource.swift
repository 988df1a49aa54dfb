#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the server plays into a call, pulled 20 ms at a time by the media clock: 48 kHz mono
/// 16-bit PCM (`MediaAudio.sampleRate`, frames of `MediaAudio.frameSamples`).
///
/// Sources are values: a playback owns its copy, so two calls playing the same prompt never share
/// a position. Reading allocates nothing.
public protocol AudioSource: Sendable {
    /// Overwrites all of `buffer` (silence after the source's end). Returns false when the source
    /// had already ended before this call, so nothing of it is in `buffer`.
    mutating func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Bool

    /// Like `read(into:)`, but returns how many samples at the start of `buffer` are the source's
    /// audio (`buffer.count` while it plays, fewer in its last buffer, 0 once ended), so that a
    /// `SequenceSource` joins the next source without a gap. The default answers in whole buffers.
    mutating func readSamples(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int
}

extension AudioSource {
    public mutating func readSamples(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        read(into: buffer) ? buffer.count : 0
    }
}

/// The format every `AudioSource` produces.
public enum MediaAudio {
    /// Samples per second.
    public static let sampleRate = 48_000
    /// Samples in one 20 ms frame, the media clock's tick.
    public static let frameSamples = 960

    /// Samples in `seconds` at 48 kHz (negative and non-finite values give 0).
    public static func samples(seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int((seconds * Double(sampleRate)).rounded())
    }

    /// Level of `samples` in dBFS (RMS relative to a full-scale square wave; −∞ for silence).
    public static func levelDBFS(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        guard !samples.isEmpty else { return -.infinity }
        var sum = 0.0
        for s in samples { sum += Double(s) * Double(s) }
        let rms = (sum / Double(samples.count)).squareRoot()
        return rms > 0 ? 20 * log10(rms / 32_768) : -.infinity
    }
}

/// Silence for `seconds` (`<Pause>`), or forever (`nil`: a held call).
public struct SilenceSource: AudioSource {
    private var remaining: Int?

    public init(seconds: Double? = nil) {
        remaining = seconds.map(MediaAudio.samples(seconds:))
    }

    public mutating func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
        readSamples(into: buffer) > 0
    }

    public mutating func readSamples(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        buffer.update(repeating: 0)
        guard let left = remaining else { return buffer.count }
        let n = min(left, buffer.count)
        remaining = left - n
        return n
    }
}
