#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import AudioCore

/// A device whose microphone is a sine tone and whose speaker only measures what it is given:
/// for tests and probes that need a known signal in and proof that audio came out.
public final class ToneAudioDevice: AudioDevice, PacedAudioDevice {
    let core: PacedDeviceCore<ToneCaptureSource, LevelMeterSink>

    /// - Parameters:
    ///   - frequency: the captured tone in hertz.
    ///   - levelDBFS: its peak level (0 is full scale).
    ///   - captureFormat / renderFormat: 48 kHz mono, 10 ms buffers by default.
    public init(frequency: Double = 440, levelDBFS: Double = -12,
                captureFormat: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 1),
                renderFormat: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 1),
                pacing: AudioPacing = .realTime) throws(AudioDeviceError) {
        try validate(captureFormat, "capture format")
        try validate(renderFormat, "render format")
        let generator = ToneGenerator(sampleRate: captureFormat.sampleRate, frequency: frequency, levelDBFS: levelDBFS)
        core = PacedDeviceCore(name: "parley-tone-dev", pacing: pacing,
                               source: ToneCaptureSource(generator: generator, format: captureFormat),
                               sink: LevelMeterSink(format: renderFormat), onEndOfInput: nil)
    }

    /// Changes the captured tone; the phase carries on, so there is no click.
    public func setTone(frequency: Double, levelDBFS: Double) {
        core.withSource { $0.generator.setTones(.init(frequency: frequency, levelDBFS: levelDBFS)) }
    }

    /// The captured tone's frequency and level.
    public var tone: ToneGenerator.Tone { core.withSource { $0.generator.first } ?? .init(frequency: 0, levelDBFS: -.infinity) }

    /// What has been rendered since the renderer was last initialized.
    public var renderedAudio: RenderedAudioStatistics { core.withSink { $0.statistics } ?? RenderedAudioStatistics() }

    public var pacing: AudioPacing { core.pacing }

    /// `.manual` pacing: captures one buffer and renders one (for the sides that are started).
    public func tick() { core.tick() }
}

/// Levels of what a device rendered, for checking that audio arrived.
public struct RenderedAudioStatistics: Sendable, Hashable {
    /// Buffers and frames rendered.
    public var buffers = 0
    public var frames = 0
    /// The largest magnitude of any rendered sample (0…32 768).
    public var peak = 0
    /// RMS of the most recent buffer, as a fraction of full scale (0…1).
    public var lastBufferRMS = 0.0
    /// Buffers whose RMS was above −60 dBFS.
    public var audibleBuffers = 0

    public init() {}

    /// `lastBufferRMS` in dBFS (−∞ for digital silence).
    public var lastBufferLevelDBFS: Double { lastBufferRMS > 0 ? 20 * log10(lastBufferRMS) : -.infinity }

    mutating func add(_ buffer: UnsafeBufferPointer<Int16>, channels: Int) {
        var sumOfSquares = 0.0
        var bufferPeak = 0
        for sample in buffer {
            let value = Int(sample)
            bufferPeak = max(bufferPeak, abs(value))
            sumOfSquares += Double(value * value)
        }
        buffers += 1
        frames += buffer.count / max(1, channels)
        peak = max(peak, bufferPeak)
        lastBufferRMS = buffer.isEmpty ? 0 : (sumOfSquares / Double(buffer.count)).squareRoot() / 32_768
        if lastBufferRMS > 0.001 { audibleBuffers += 1 }
    }
}

struct ToneCaptureSource: PacedCaptureSource {
    var generator: ToneGenerator
    let format: AudioFormat

    mutating func prepare() throws(AudioDeviceError) { generator.resetPhase() }

    mutating func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> CaptureFill {
        generator.generate(into: buffer, channels: format.channels)
        return .more
    }
}

struct LevelMeterSink: PacedRenderSink {
    let format: AudioFormat
    private(set) var statistics = RenderedAudioStatistics()

    init(format: AudioFormat) { self.format = format }

    mutating func open() throws(AudioDeviceError) { statistics = RenderedAudioStatistics() }
    mutating func consume(_ buffer: UnsafeBufferPointer<Int16>) { statistics.add(buffer, channels: format.channels) }
    mutating func close() {}
}
