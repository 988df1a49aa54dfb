import AudioCore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct ToneGeneratorTests {
    /// Goertzel power of `frequency` over `samples`, as a sine amplitude (peak, sample units).
    static func amplitude(of frequency: Double, in samples: [Int16], sampleRate: Int) -> Double {
        let c = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var s1 = 0.0, s2 = 0.0
        for x in samples {
            let s = Double(x) + c * s1 - s2
            s2 = s1
            s1 = s
        }
        let power = s1 * s1 + s2 * s2 - c * s1 * s2
        return 2 * power.squareRoot() / Double(samples.count)
    }

    @Test func singleToneHasTheRequestedPeakAndFrequency() {
        var tone = ToneGenerator(sampleRate: 8_000, frequency: 1_000, levelDBFS: -6)
        let samples = tone.samples(frames: 8_000)
        let expectedPeak = 32_767 * pow(10, -6.0 / 20)   // 16 422
        #expect(abs(Double(samples.map { abs(Int($0)) }.max()!) - expectedPeak) <= 1)
        #expect(abs(Self.amplitude(of: 1_000, in: samples, sampleRate: 8_000) - expectedPeak) < expectedPeak * 0.01)
        // 1 kHz crosses zero upwards 1 000 times a second.
        let upward = zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect(abs(upward - 1_000) <= 1)
    }

    @Test func dualToneCarriesBothComponentsAtTheirLevels() {
        var tone = ToneGenerator(sampleRate: 48_000, first: .init(frequency: 697, levelDBFS: -8),
                                 second: .init(frequency: 1_209, levelDBFS: -6))
        let samples = tone.samples(frames: 48_000)
        let low = Self.amplitude(of: 697, in: samples, sampleRate: 48_000)
        let high = Self.amplitude(of: 1_209, in: samples, sampleRate: 48_000)
        #expect(abs(low - 32_767 * pow(10, -8.0 / 20)) < 50)
        #expect(abs(high - 32_767 * pow(10, -6.0 / 20)) < 50)
        #expect(Self.amplitude(of: 1_000, in: samples, sampleRate: 48_000) < 50)
    }

    @Test(arguments: [[1], [7, 13], [160], [441, 1, 999]])
    func outputIsTheSameWhateverTheBufferSizes(chunks: [Int]) {
        var whole = ToneGenerator(sampleRate: 16_000, first: .init(frequency: 440, levelDBFS: -3),
                                  second: .init(frequency: 1_633, levelDBFS: -9))
        let reference = whole.samples(frames: 4_000)
        var split = ToneGenerator(sampleRate: 16_000, first: .init(frequency: 440, levelDBFS: -3),
                                  second: .init(frequency: 1_633, levelDBFS: -9))
        var pieces: [Int16] = []
        var index = 0
        while pieces.count < reference.count {
            pieces += split.samples(frames: min(chunks[index % chunks.count], reference.count - pieces.count))
            index += 1
        }
        #expect(pieces == reference)
    }

    @Test func changingFrequencyKeepsThePhaseContinuous() {
        var tone = ToneGenerator(sampleRate: 8_000, frequency: 500, levelDBFS: -6)
        var samples = tone.samples(frames: 333)
        tone.setTones(.init(frequency: 1_500, levelDBFS: -6))
        samples += tone.samples(frames: 333)
        // No jump larger than the steepest slope of the faster sine: 2π·f/fs·A.
        let amplitude = 32_767 * pow(10, -6.0 / 20)
        let maximumStep = 2 * Double.pi * 1_500 / 8_000 * amplitude + 2
        let steps = zip(samples, samples.dropFirst()).map { abs(Double($1) - Double($0)) }
        #expect(steps.max()! <= maximumStep)
    }

    @Test func interleavedChannelsGetTheSameSample() {
        var tone = ToneGenerator(sampleRate: 48_000, frequency: 1_000, levelDBFS: -12)
        let stereo = tone.samples(frames: 480, channels: 2)
        #expect(stereo.count == 960)
        for frame in 0..<480 { #expect(stereo[2 * frame] == stereo[2 * frame + 1]) }
        var mono = ToneGenerator(sampleRate: 48_000, frequency: 1_000, levelDBFS: -12)
        #expect(stride(from: 0, to: 960, by: 2).map { stereo[$0] } == mono.samples(frames: 480))
    }

    @Test func mixingAddsAndSaturates() {
        var tone = ToneGenerator(sampleRate: 8_000, frequency: 1_000, levelDBFS: 0)
        var buffer = [Int16](repeating: 30_000, count: 80)
        buffer.withUnsafeMutableBufferPointer { tone.mix(into: $0) }
        #expect(buffer.max() == .max)                 // clipped, never wrapped around
        #expect(buffer.min()! >= 30_000 - 32_767)
        var quiet = ToneGenerator(sampleRate: 8_000, frequency: 1_000, levelDBFS: -20)
        var base = [Int16](repeating: 100, count: 8)
        base.withUnsafeMutableBufferPointer { quiet.mix(into: $0) }
        var alone = ToneGenerator(sampleRate: 8_000, frequency: 1_000, levelDBFS: -20)
        #expect(base == alone.samples(frames: 8).map { $0 + 100 })
    }

    @Test func unplayableTonesAreSilent() {
        var nyquist = ToneGenerator(sampleRate: 8_000, frequency: 4_000, levelDBFS: -6)
        var negative = ToneGenerator(sampleRate: 8_000, frequency: -5, levelDBFS: -6)
        var muted = ToneGenerator(sampleRate: 8_000, frequency: 1_000, levelDBFS: -.infinity)
        for samples in [nyquist.samples(frames: 100), negative.samples(frames: 100), muted.samples(frames: 100)] {
            #expect(samples == [Int16](repeating: 0, count: 100))
        }
        #expect(ToneGenerator.Tone(frequency: 1, levelDBFS: 6).amplitude == 32_767)   // clamped to full scale
    }

    @Test func resetPhaseRestartsTheWave() {
        var tone = ToneGenerator(sampleRate: 8_000, frequency: 700, levelDBFS: -6)
        let first = tone.samples(frames: 50)
        _ = tone.samples(frames: 37)
        tone.resetPhase()
        #expect(tone.samples(frames: 50) == first)
        #expect(first[0] == 0)
    }
}
