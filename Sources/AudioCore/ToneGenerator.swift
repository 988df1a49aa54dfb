#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A phase-continuous generator of one or two summed sine tones at a fixed sample rate, writing
/// 16-bit PCM into caller buffers (mono or interleaved; every channel gets the same sample).
///
/// The phase of each tone is kept across calls and across frequency or level changes, so buffers of
/// any size join without clicks. Generating never allocates: it is safe on a device's audio thread.
public struct ToneGenerator: Sendable {
    /// One sine component of a `ToneGenerator`: a frequency and a peak level.
    public struct Tone: Hashable, Sendable {
        /// Frequency in hertz (0 or below, or at/above Nyquist, produces silence).
        public var frequency: Double
        /// Peak level in dBFS: 0 is a full-scale sine (peak 32 767), −6 about half of it.
        public var levelDBFS: Double

        public init(frequency: Double, levelDBFS: Double) {
            self.frequency = frequency
            self.levelDBFS = levelDBFS
        }

        /// Peak amplitude in 16-bit sample units (0 when the level is −∞ or the input is not finite).
        public var amplitude: Double {
            guard levelDBFS.isFinite else { return 0 }
            return 32_767 * pow(10, min(levelDBFS, 0) / 20)
        }
    }

    /// Samples per second per channel.
    public let sampleRate: Int
    /// The first tone (for a DTMF digit, the low-group frequency).
    public private(set) var first: Tone
    /// The optional second tone (for a DTMF digit, the high-group frequency).
    public private(set) var second: Tone?

    // Phases in cycles, kept in [0, 1), and per-sample increments; amplitudes cached from the levels.
    private var phase1 = 0.0
    private var phase2 = 0.0
    private var step1 = 0.0
    private var step2 = 0.0
    private var amplitude1 = 0.0
    private var amplitude2 = 0.0

    /// A generator of `first`, plus `second` when given, at `sampleRate` (must be positive).
    public init(sampleRate: Int, first: Tone, second: Tone? = nil) {
        precondition(sampleRate > 0, "ToneGenerator needs a positive sample rate")
        self.sampleRate = sampleRate
        self.first = first
        self.second = second
        refresh()
    }

    /// A single sine of `frequency` Hz at `levelDBFS`.
    public init(sampleRate: Int, frequency: Double, levelDBFS: Double) {
        self.init(sampleRate: sampleRate, first: Tone(frequency: frequency, levelDBFS: levelDBFS))
    }

    /// Changes the tones; phases carry on from where they were, so the signal stays continuous.
    public mutating func setTones(_ first: Tone, _ second: Tone? = nil) {
        self.first = first
        self.second = second
        refresh()
    }

    /// Restarts both tones at phase zero.
    public mutating func resetPhase() {
        phase1 = 0
        phase2 = 0
    }

    /// Overwrites `buffer` with the tones. `channels` > 1 means interleaved frames: each frame's
    /// channels get the same sample, and a trailing partial frame is filled too.
    public mutating func generate(into buffer: UnsafeMutableBufferPointer<Int16>, channels: Int = 1) {
        render(into: buffer, channels: channels, mixing: false)
    }

    /// Adds the tones to what `buffer` already holds, saturating at the 16-bit limits (for mixing a
    /// tone into captured audio).
    public mutating func mix(into buffer: UnsafeMutableBufferPointer<Int16>, channels: Int = 1) {
        render(into: buffer, channels: channels, mixing: true)
    }

    /// Convenience for tests and tools: `frames` frames as a new array (this one allocates).
    public mutating func samples(frames: Int, channels: Int = 1) -> [Int16] {
        var out = [Int16](repeating: 0, count: max(0, frames) * max(1, channels))
        out.withUnsafeMutableBufferPointer { generate(into: $0, channels: channels) }
        return out
    }

    private mutating func render(into buffer: UnsafeMutableBufferPointer<Int16>, channels: Int, mixing: Bool) {
        let channels = max(1, channels)
        var index = 0
        while index < buffer.count {
            let value = nextSample()
            let end = min(index + channels, buffer.count)
            while index < end {
                let sum = mixing ? value + Double(buffer[index]) : value
                buffer[index] = Self.saturate(sum)
                index += 1
            }
        }
    }

    /// The next sample of the sum (unrounded), advancing both phases by one sample.
    private mutating func nextSample() -> Double {
        let twoPi = 2 * Double.pi
        var value = amplitude1 * sin(twoPi * phase1)
        phase1 += step1
        if phase1 >= 1 { phase1 -= 1 }
        if amplitude2 > 0 {
            value += amplitude2 * sin(twoPi * phase2)
        }
        phase2 += step2
        if phase2 >= 1 { phase2 -= 1 }
        return value
    }

    private static func saturate(_ value: Double) -> Int16 {
        let rounded = value.rounded()
        if rounded >= 32_767 { return .max }
        if rounded <= -32_768 { return .min }
        return Int16(rounded)
    }

    private mutating func refresh() {
        (step1, amplitude1) = Self.stepAndAmplitude(first, sampleRate: sampleRate)
        (step2, amplitude2) = second.map { Self.stepAndAmplitude($0, sampleRate: sampleRate) } ?? (0, 0)
    }

    /// Cycles per sample in [0, 0.5) and the amplitude; frequencies outside (0, Nyquist) are silent.
    private static func stepAndAmplitude(_ tone: Tone, sampleRate: Int) -> (Double, Double) {
        let step = tone.frequency / Double(sampleRate)
        guard step.isFinite, step > 0, step < 0.5 else { return (0, 0) }
        return (step, tone.amplitude)
    }
}
