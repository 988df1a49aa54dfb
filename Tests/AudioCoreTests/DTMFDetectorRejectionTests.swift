import AudioCore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the in-band detector must not report: single tones, voices, short or badly twisted tones.
@Suite struct DTMFDetectorRejectionTests {
    @Test(arguments: [8_000, 16_000, 48_000])
    func singleRowToneIsNotAKey(sampleRate: Int) {
        var tone = ToneGenerator(sampleRate: sampleRate, frequency: 697, levelDBFS: -3)
        let samples = tone.samples(frames: sampleRate / 2)
        #expect(detect(samples, sampleRate: sampleRate).isEmpty)
    }

    @Test func singleColumnToneAndNonDTMFPairsAreNotKeys() {
        var column = ToneGenerator(sampleRate: 8_000, frequency: 1_336, levelDBFS: -6)
        #expect(detect(column.samples(frames: 4_000), sampleRate: 8_000).isEmpty)
        // Dial tone (350 + 440 Hz) and ringback (440 + 480 Hz) are not DTMF.
        for pair in [(350.0, 440.0), (440.0, 480.0), (480.0, 620.0)] {
            var tone = ToneGenerator(sampleRate: 8_000, first: .init(frequency: pair.0, levelDBFS: -8),
                                     second: .init(frequency: pair.1, levelDBFS: -8))
            #expect(detect(tone.samples(frames: 8_000), sampleRate: 8_000).isEmpty, "\(pair)")
        }
    }

    @Test(arguments: [8_000, 16_000])
    func harmonicRichSawtoothSweepIsNotAKey(sampleRate: Int) {
        // A 150 Hz-centred sawtooth gliding 90 → 300 Hz over 3 s: its harmonics sweep through every
        // DTMF frequency, in pairs, as a voice's do.
        var samples: [Int16] = []
        var phase = 0.0
        let count = 3 * sampleRate
        for n in 0..<count {
            let f0 = 90 + 210 * Double(n) / Double(count)
            phase += f0 / Double(sampleRate)
            phase -= phase.rounded(.down)
            samples.append(Int16(12_000 * (2 * phase - 1)))
        }
        #expect(detect(samples, sampleRate: sampleRate).isEmpty)
    }

    /// Peterson & Barney's average formants (male speakers), F1–F3 in hertz.
    static let vowels: [(String, Double, Double, Double)] = [
        ("i", 270, 2_290, 3_010), ("ɪ", 390, 1_990, 2_550), ("ɛ", 530, 1_840, 2_480), ("æ", 660, 1_720, 2_410),
        ("ɑ", 730, 1_090, 2_440), ("ɔ", 570, 840, 2_410), ("ʊ", 440, 1_020, 2_240), ("u", 300, 870, 2_240),
        ("ʌ", 640, 1_190, 2_390), ("ɝ", 490, 1_350, 1_690),
    ]

    @Test func syntheticVowelsAreNotKeys() {
        let sampleRate = 8_000
        for (name, f1, f2, f3) in Self.vowels {
            // A glottal pulse train gliding 85 → 240 Hz through three formant resonators.
            var source: [Double] = []
            var phase = 0.0
            let count = sampleRate * 6 / 10
            for n in 0..<count {
                let f0 = 85 + 155 * Double(n) / Double(count)
                phase += f0 / Double(sampleRate)
                if phase >= 1 {
                    phase -= 1
                    source.append(1)
                } else {
                    source.append(0)
                }
            }
            var voiced = source
            for (formant, bandwidth) in [(f1, 60.0), (f2, 90.0), (f3, 120.0)] {
                voiced = Self.resonate(voiced, frequency: formant, bandwidth: bandwidth, sampleRate: sampleRate)
            }
            let peak = voiced.map(abs).max() ?? 1
            let samples = voiced.map { Int16(16_000 * $0 / peak) }
            #expect(detect(samples, sampleRate: sampleRate).isEmpty, "vowel \(name)")
        }
    }

    /// A two-pole resonator (a formant): y[n] = x[n] + 2r·cos θ·y[n−1] − r²·y[n−2].
    static func resonate(_ x: [Double], frequency: Double, bandwidth: Double, sampleRate: Int) -> [Double] {
        let r = exp(-Double.pi * bandwidth / Double(sampleRate))
        let a1 = 2 * r * cos(2 * Double.pi * frequency / Double(sampleRate))
        let a2 = -r * r
        var y1 = 0.0, y2 = 0.0
        return x.map { sample in
            let y = sample + a1 * y1 + a2 * y2
            y2 = y1
            y1 = y
            return y
        }
    }

    /// 100 ms of the given tones (frequency, dBFS) between silences, at 8 kHz.
    static func tones(_ parts: [(Double, Double)]) -> [Int16] {
        var body = [Int16](repeating: 0, count: 800)
        for (frequency, level) in parts {
            var tone = ToneGenerator(sampleRate: 8_000, frequency: frequency, levelDBFS: level)
            body.withUnsafeMutableBufferPointer { tone.mix(into: $0) }
        }
        return [Int16](repeating: 0, count: 160) + body + [Int16](repeating: 0, count: 400)
    }

    @Test func keyPairWithSecondHarmonicsIsRejected() {
        // A voiced sound's harmonic series: the pair plus second harmonics 10 dB down. The
        // harmonic test alone is what rejects it (with it switched off the pair is reported).
        let signals = [Self.tones([(697, -8), (1_209, -6), (1_394, -18), (2_418, -16)]),
                       Self.tones([(852, -8), (1_477, -6), (1_704, -18)]),
                       Self.tones([(941, -8), (1_336, -6), (2_672, -16)])]
        var withoutHarmonicTest = DTMFDetector.Configuration()
        withoutHarmonicTest.harmonicRejectionDB = -100
        for signal in signals {
            #expect(detect(signal, sampleRate: 8_000).isEmpty)
            #expect(detect(signal, sampleRate: 8_000, configuration: withoutHarmonicTest).count == 1)
        }
    }

    @Test func keyPairDrownedInOtherTonesIsRejected() {
        // Music or speech around a pair: the pair carries well under 80 % of the energy.
        let signal = Self.tones([(697, -10), (1_209, -8), (400, -12), (2_000, -12), (3_000, -12)])
        var withoutEnergyTest = DTMFDetector.Configuration()
        withoutEnergyTest.minimumEnergyRatio = 0
        #expect(detect(signal, sampleRate: 8_000).isEmpty)
        #expect(detect(signal, sampleRate: 8_000, configuration: withoutEnergyTest).count == 1)
    }

    @Test(arguments: [8_000, 16_000, 48_000])
    func thirtyMillisecondTonesAreRejectedAtAnyAlignment(sampleRate: Int) {
        let hop = DTMFDetector(sampleRate: sampleRate).hopSize
        for shift in stride(from: 0, to: hop, by: max(1, hop / 8)) {
            var signal = DTMFSignal(sampleRate: sampleRate)
            signal.samples = [Int16](repeating: 0, count: shift)
            signal.silence(milliseconds: 20)
            signal.key(.four, milliseconds: 30)
            signal.silence(milliseconds: 60)
            signal.key(.four, milliseconds: 30)
            signal.silence(milliseconds: 60)
            #expect(detect(signal.samples, sampleRate: sampleRate).isEmpty, "shift \(shift)")
        }
    }

    @Test func excessiveTwistIsRejected() {
        // High group 12 dB above the low group (normal twist over 8 dB), then low group 8 dB
        // above the high group (reverse twist over 4 dB).
        for (low, high) in [(-18.0, -6.0), (-4.0, -12.0)] {
            var signal = DTMFSignal(sampleRate: 8_000)
            signal.key(.one, milliseconds: 100, low: low, high: high)
            signal.silence(milliseconds: 40)
            #expect(detect(signal.samples, sampleRate: 8_000).isEmpty, "low \(low) high \(high)")
        }
    }

    @Test func tonesBelowTheMinimumLevelAreIgnored() {
        var signal = DTMFSignal(sampleRate: 8_000)
        signal.key(.nine, milliseconds: 100, low: -42, high: -40)
        signal.silence(milliseconds: 40)
        #expect(detect(signal.samples, sampleRate: 8_000).isEmpty)
    }

    @Test func pureNoiseIsNotAKey() {
        var signal = DTMFSignal(sampleRate: 8_000)
        signal.samples = [Int16](repeating: 1_000, count: 16_000)   // power reference for the noise
        signal.addNoise(snrDB: -20, seed: 7)
        signal.samples = signal.samples.map { $0 &- 1_000 }
        #expect(detect(signal.samples, sampleRate: 8_000).isEmpty)
    }
}
