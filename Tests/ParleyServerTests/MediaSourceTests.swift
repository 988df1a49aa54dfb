import AudioCore
import Foundation
@testable import ServerMedia
import Testing

@Suite struct MediaSourceTests {
    let rate = MediaAudio.sampleRate

    @Test func usRingbackIs440Plus480AtMinus19DBm0WithTwoOnFourOffCadence() {
        var source = RingbackSource(region: .us)
        let (samples, audible) = MediaSignal.read(&source, frames: 600)  // two 6 s cycles
        #expect(audible.allSatisfy { $0 == MediaAudio.frameSamples })
        let frameEnergy = stride(from: 0, to: samples.count, by: 960).map { MediaSignal.rms(samples[$0..<$0 + 960]) }
        let onFrames = frameEnergy.indices.filter { frameEnergy[$0] > 0 }
        #expect(onFrames == Array(0..<100) + Array(300..<400))
        let on = samples[48_000..<96_000]
        #expect(abs(MediaSignal.amplitude(on, frequency: 440, rate: rate) - 2_549) < 60)
        #expect(abs(MediaSignal.amplitude(on, frequency: 480, rate: rate) - 2_549) < 60)
        #expect(MediaSignal.amplitude(on, frequency: 620, rate: rate) < 20)
        // −19 dBm0 per tone: each peaks at −22.17 dBFS; the pair's RMS equals one tone's peak.
        let level = on.withContiguousStorageIfAvailable { MediaAudio.levelDBFS($0) } ?? 0
        #expect(abs(level - (-22.17 - 0.0)) < 0.3)
        #expect(samples[96_000..<288_000].allSatisfy { $0 == 0 })
    }

    @Test func ukRingbackHasItsDoubleRingCadence() {
        var source = RingbackSource(region: .uk)
        let (samples, _) = MediaSignal.read(&source, frames: 150)  // one 3 s cycle
        let on = (0..<150).map { MediaSignal.rms(samples[$0 * 960..<($0 + 1) * 960]) > 0 }
        let expected = (0..<150).map { $0 < 20 || (30..<50).contains($0) }
        #expect(on == expected)
        let burst = samples[0..<19_200]
        #expect(MediaSignal.amplitude(burst, frequency: 400, rate: rate) > 2_000)
        #expect(MediaSignal.amplitude(burst, frequency: 450, rate: rate) > 2_000)
    }

    @Test func europeanRingbackIs425HzOneSecondInFive() {
        var source = RingbackSource(region: .europe)
        let (samples, _) = MediaSignal.read(&source, frames: 250)
        let on = (0..<250).filter { MediaSignal.rms(samples[$0 * 960..<($0 + 1) * 960]) > 0 }
        #expect(on == Array(0..<50))
        #expect(MediaSignal.strongest(samples[0..<48_000], of: [400, 425, 450], rate: rate) == 425)
    }

    @Test func silenceSourceEndsAfterItsDurationOrNever() {
        var pause = SilenceSource(seconds: 0.05)
        let (samples, audible) = MediaSignal.read(&pause, frames: 4)
        #expect(audible == [960, 960, 480, 0])
        #expect(samples.allSatisfy { $0 == 0 })
        var hold = SilenceSource()
        #expect(MediaSignal.read(&hold, frames: 500).audible.allSatisfy { $0 == 960 })
    }

    @Test func pcmSourcePlaysLoopTimesThenEnds() {
        let audio = PCMAudio(samples: (0..<1_000).map { Int16($0) })
        var source = PCMSource(audio, loop: 3)
        let (samples, audible) = MediaSignal.read(&source, frames: 5)
        #expect(audible == [960, 960, 960, 120, 0])
        #expect(Array(samples[0..<3_000]) == Array(repeating: audio.samples, count: 3).flatMap { $0 })
        #expect(samples[3_000...].allSatisfy { $0 == 0 })
    }

    @Test func pcmSourceWithLoopZeroPlaysForeverUnlessEmpty() {
        var forever = PCMSource(PCMAudio(samples: [1, 2, 3]), loop: 0)
        #expect(MediaSignal.read(&forever, frames: 200).audible.allSatisfy { $0 == 960 })
        var empty = PCMSource(PCMAudio(samples: []), loop: 0)
        #expect(MediaSignal.read(&empty, frames: 1).audible == [0])
    }

    @Test func wavIsMixedDownAndResampledTo48kHz() throws {
        let left = MediaSignal.sine(1_000, rate: 8_000, seconds: 1)
        let stereo = left.flatMap { [$0, $0] }
        let bytes = WAVFile(sampleRate: 8_000, channels: 2, samples: stereo).serialized
        let audio = try PCMAudio(wavBytes: bytes)
        #expect(audio.samples.count == 48_000)
        let middle = audio.samples[4_800..<43_200]
        #expect(abs(MediaSignal.amplitude(middle, frequency: 1_000, rate: rate) - 8_000) < 300)
        #expect(MediaSignal.amplitude(middle, frequency: 3_000, rate: rate) < 100)
    }

    @Test func muLawWAVIsDecoded() throws {
        let tone = MediaSignal.sine(440, rate: 8_000, seconds: 0.5)
        var bytes = Array("RIFF".utf8) + le32(36 + tone.count) + Array("WAVEfmt ".utf8) + le32(16)
        bytes += le16(7) + le16(1) + le32(8_000) + le32(8_000) + le16(1) + le16(8)
        bytes += Array("data".utf8) + le32(tone.count) + tone.map(G711.muLawEncode)
        let audio = try PCMAudio(wavBytes: bytes)
        #expect(audio.samples.count == 24_000)
        #expect(abs(MediaSignal.amplitude(audio.samples[2_400..<21_600], frequency: 440, rate: rate) - 8_000) < 400)
    }

    @Test func wavLongerThanTheLimitIsCut() throws {
        let bytes = WAVFile(sampleRate: 16_000, channels: 1, samples: [Int16](repeating: 100, count: 32_000)).serialized
        let audio = try PCMAudio(wavBytes: bytes, maximumSeconds: 0.5)
        #expect(audio.samples.count == 24_000)
    }

    @Test(arguments: [[UInt8](), Array("not a wav file at all".utf8), Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)])
    func badWAVIsRefused(_ bytes: [UInt8]) {
        #expect(throws: MediaError.self) { try PCMAudio(wavBytes: bytes) }
    }

    @Test func digitsPlayDTMFWithHalfSecondPauses() throws {
        var source = try DigitsSource("1w2#")
        let (samples, audible) = MediaSignal.read(&source, frames: 60)
        // Three keys of 100 ms tone + 70 ms gap, one 500 ms pause: 1.01 s.
        #expect(audible.reduce(0, +) == 48_480)
        var detector = DTMFDetector(sampleRate: rate)
        let detections = detector.process(samples)
        #expect(detections.map(\.digit.character) == ["1", "2", "#"])
        #expect(detections.map { Int($0.startSample) / 480 } == [0, 67, 84])  // in 10 ms units, ±the detector's hop
    }

    @Test func invalidDigitsAreRefused() {
        #expect(throws: MediaError.self) { try DigitsSource("12x") }
    }

    @Test func sequenceJoinsSourcesWithoutGaps() {
        var source = SequenceSource([ToneSource(frequencies: [1_000], seconds: 0.01), SilenceSource(seconds: 0.005),
                                     PCMSource(PCMAudio(samples: [Int16](repeating: 7, count: 100)), loop: 2)])
        let (samples, audible) = MediaSignal.read(&source, frames: 2)
        #expect(audible == [480 + 240 + 200, 0])
        #expect(samples[470..<480].contains { $0 != 0 })
        #expect(samples[480..<720].allSatisfy { $0 == 0 })
        #expect(samples[720..<920].allSatisfy { $0 == 7 })
    }

    @Test func beepIsHalfASecondOf1kHz() {
        var beep = ToneSource.beep()
        let (samples, audible) = MediaSignal.read(&beep, frames: 26)
        #expect(audible.reduce(0, +) == 24_000)
        #expect(MediaSignal.strongest(samples[0..<24_000], of: [500, 1_000, 2_000], rate: rate) == 1_000)
    }

    @Test func holdMusicLoopsEightAudibleSeconds() {
        #expect(HoldMusic.loop.samples.count == 8 * rate)
        var music = HoldMusic.source()
        let (samples, audible) = MediaSignal.read(&music, frames: 450)
        #expect(audible.allSatisfy { $0 == 960 })
        let level = 20 * log10(MediaSignal.rms(samples) / 32_768)
        #expect(level > -40 && level < -20)
        #expect(Array(samples[0..<1_000]) == Array(samples[384_000..<385_000]))
    }

    private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    private func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
}
