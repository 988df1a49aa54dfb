import Foundation
import NetworkConditioner
import ParleyAudio
import Testing

/// Accelerate and expand by one pitch period keep the pitch and leave no discontinuity.
@Suite struct TimeStretcherTests {
    static let amplitude = 10_000.0

    /// `count` samples per channel of a sine; channel c is shifted by c × 0.7 rad.
    static func tone(_ frequency: Double, rate: Int, count: Int, channels: Int = 1, from start: Int = 0) -> [Int16] {
        (0..<count * channels).map { i in
            let t = Double(start + i / channels) / Double(rate)
            return Int16((amplitude * sin(2 * .pi * frequency * t + 0.3 + 0.7 * Double(i % channels))).rounded())
        }
    }

    /// Largest sample-to-sample step of one channel.
    static func maxJump(_ x: [Int16], channels: Int = 1, channel: Int = 0) -> Int {
        var jump = 0
        var i = channel + channels
        while i < x.count {
            jump = max(jump, abs(Int(x[i]) - Int(x[i - channels])))
            i += channels
        }
        return jump
    }

    /// Frequency from the mean distance between rising zero crossings (interpolated).
    static func frequency(_ x: [Int16], rate: Int, channels: Int = 1, channel: Int = 0) -> Double {
        var crossings: [Double] = []
        var i = channel + channels
        while i < x.count {
            let a = Double(x[i - channels]), b = Double(x[i])
            if a < 0, b >= 0 { crossings.append(Double(i / channels) - b / (b - a)) }
            i += channels
        }
        guard crossings.count > 1, let first = crossings.first, let last = crossings.last else { return 0 }
        return Double(rate) * Double(crossings.count - 1) / (last - first)
    }

    /// The natural largest step of the test tone, plus rounding.
    static func naturalJump(_ frequency: Double, rate: Int) -> Int { Int(amplitude * 2 * .pi * frequency / Double(rate)) + 2 }

    @Test func accelerateRemovesOnePeriodOfA200HzTone() {
        var stretcher = TimeStretcher(sampleRate: 48_000)
        var pcm = Self.tone(200, rate: 48_000, count: 960)
        let removed = pcm.withUnsafeMutableBufferPointer { stretcher.accelerate($0, samplesPerChannel: 960, maxRemoved: 480) }
        #expect(removed == 240)
        // What follows is the next frame of the original: the result must join it seamlessly too.
        let out = Array(pcm[0..<720]) + Self.tone(200, rate: 48_000, count: 480, from: 960)
        #expect(Self.maxJump(out) <= Self.naturalJump(200, rate: 48_000))
        #expect(abs(Self.frequency(out, rate: 48_000) - 200) < 0.5)
    }

    @Test func expandInsertsOnePeriodOfA200HzTone() {
        var stretcher = TimeStretcher(sampleRate: 48_000)
        var pcm = Self.tone(200, rate: 48_000, count: 960) + [Int16](repeating: 0, count: 480)
        let inserted = pcm.withUnsafeMutableBufferPointer { stretcher.expand($0, samplesPerChannel: 960, maxInserted: 480) }
        #expect(inserted == 240)
        let out = Array(pcm[0..<1_200]) + Self.tone(200, rate: 48_000, count: 480, from: 960)
        #expect(Self.maxJump(out) <= Self.naturalJump(200, rate: 48_000))
        #expect(abs(Self.frequency(out, rate: 48_000) - 200) < 0.5)
    }

    @Test func aLowerVoiceLosesItsLongerPeriod() {
        var stretcher = TimeStretcher(sampleRate: 48_000)
        var pcm = Self.tone(100, rate: 48_000, count: 960)
        let removed = pcm.withUnsafeMutableBufferPointer { stretcher.accelerate($0, samplesPerChannel: 960, maxRemoved: 960) }
        #expect(removed == 480)
        let out = Array(pcm[0..<480]) + Self.tone(100, rate: 48_000, count: 480, from: 960)
        #expect(Self.maxJump(out) <= Self.naturalJump(100, rate: 48_000))
    }

    @Test func at8kHzThePeriodIsFoundToo() {
        var stretcher = TimeStretcher(sampleRate: 8_000)
        var pcm = Self.tone(200, rate: 8_000, count: 160) + [Int16](repeating: 0, count: 80)
        let inserted = pcm.withUnsafeMutableBufferPointer { stretcher.expand($0, samplesPerChannel: 160, maxInserted: 80) }
        #expect(inserted == 40)
        let out = Array(pcm[0..<200]) + Self.tone(200, rate: 8_000, count: 80, from: 160)
        #expect(Self.maxJump(out) <= Self.naturalJump(200, rate: 8_000))
    }

    @Test func stereoChannelsAreCutTogether() {
        var stretcher = TimeStretcher(sampleRate: 48_000, channels: 2)
        var pcm = Self.tone(200, rate: 48_000, count: 960, channels: 2)
        let removed = pcm.withUnsafeMutableBufferPointer { stretcher.accelerate($0, samplesPerChannel: 960, maxRemoved: 480) }
        #expect(removed == 240)
        let out = Array(pcm[0..<1_440]) + Self.tone(200, rate: 48_000, count: 480, channels: 2, from: 960)
        for channel in 0..<2 {
            #expect(Self.maxJump(out, channels: 2, channel: channel) <= Self.naturalJump(200, rate: 48_000))
        }
    }

    @Test func aLimitBelowThePeriodRangeLeavesTheFrameAlone() {
        var stretcher = TimeStretcher(sampleRate: 48_000)
        let original = Self.tone(200, rate: 48_000, count: 960)
        var pcm = original
        let removed = pcm.withUnsafeMutableBufferPointer { stretcher.accelerate($0, samplesPerChannel: 960, maxRemoved: 100) }
        #expect(removed == 0)
        #expect(pcm == original)
    }

    @Test func silenceIsShortenedOrLengthenedByTheRequestedAmount() {
        var stretcher = TimeStretcher(sampleRate: 48_000)
        var quiet = Self.tone(440, rate: 48_000, count: 960).map { $0 / 500 } + [Int16](repeating: 0, count: 480)
        let removed = quiet.withUnsafeMutableBufferPointer { stretcher.accelerate($0, samplesPerChannel: 960, maxRemoved: 300) }
        #expect(removed == 300)
        var quiet2 = Self.tone(440, rate: 48_000, count: 960).map { $0 / 500 } + [Int16](repeating: 0, count: 480)
        let inserted = quiet2.withUnsafeMutableBufferPointer { stretcher.expand($0, samplesPerChannel: 960, maxInserted: 300) }
        #expect(inserted == 300)
    }

    @Test func loudNoiseWithoutPitchIsLeftAlone() {
        var random = SeededGenerator(seed: 5)
        var stretcher = TimeStretcher(sampleRate: 48_000)
        let original = (0..<960).map { _ in Int16(random.unit() * 20_000 - 10_000) }
        var pcm = original
        let removed = pcm.withUnsafeMutableBufferPointer { stretcher.accelerate($0, samplesPerChannel: 960, maxRemoved: 480) }
        #expect(removed == 0)
        #expect(pcm == original)
    }

    /// `apply`: a request that is not urgent waits until 100 ms of quiet (a pause between phrases);
    /// quiet is silence or 26 dB under the recent speech level. An urgent one is carried out on a
    /// periodic frame at once.
    @Test func requestsThatAreNotUrgentWaitForAPause() {
        var stretcher = TimeStretcher(sampleRate: 48_000)
        func apply(_ frame: [Int16], _ request: TimeStretchRequest) -> (change: Int, pcm: [Int16]) {
            var pcm = frame + [Int16](repeating: 0, count: 480)
            let change = pcm.withUnsafeMutableBufferPointer { stretcher.apply(request, to: $0, samplesPerChannel: 960) }
            return (change, Array(pcm[0..<(960 + max(change, 0))]))
        }
        let loud = Self.tone(200, rate: 48_000, count: 960)
        let waiting = apply(loud, .accelerate(maxSamples: 480, urgent: false))
        #expect(waiting.change == 0 && waiting.pcm == loud)
        #expect(apply(loud, .accelerate(maxSamples: 480, urgent: true)).change == -240)
        #expect(stretcher.speechLevel > 7_000)
        // -32 dB under the tone: quiet, though not silent. Four frames (80 ms) are not a pause yet.
        let murmur = Self.tone(440, rate: 48_000, count: 960).map { $0 / 40 }
        for _ in 0..<4 {
            #expect(apply(murmur, .expand(maxSamples: 300, urgent: false)).change == 0)
        }
        // The fifth is: shortened or lengthened by what is asked, without looking for a pitch.
        #expect(apply(murmur, .expand(maxSamples: 300, urgent: false)).change == 300)
        #expect(apply(murmur, .accelerate(maxSamples: 300, urgent: false)).change == -300)
        // Speech again: the pause is over.
        #expect(apply(loud, .accelerate(maxSamples: 480, urgent: false)).change == 0)
        #expect(apply(murmur, .accelerate(maxSamples: 300, urgent: false)).change == 0)
    }

    /// The speech level forgets: after a long quiet stretch the same murmur is the new level, no
    /// longer quiet, and a stretch of it waits again (unless urgent, when it needs a pitch).
    @Test func theSpeechLevelDecaysSoQuietIsRelative() {
        var stretcher = TimeStretcher(sampleRate: 48_000)
        var loud = Self.tone(200, rate: 48_000, count: 960) + [Int16](repeating: 0, count: 480)
        _ = loud.withUnsafeMutableBufferPointer { stretcher.apply(.none, to: $0, samplesPerChannel: 960) }
        let murmur = Self.tone(440, rate: 48_000, count: 960).map { $0 / 40 } + [Int16](repeating: 0, count: 480)
        var changes: [Int] = []
        for _ in 0..<750 {  // 15 s: the tone's level has halved 7 times
            var pcm = murmur
            changes.append(pcm.withUnsafeMutableBufferPointer {
                stretcher.apply(.accelerate(maxSamples: 300, urgent: false), to: $0, samplesPerChannel: 960)
            })
        }
        #expect(changes[4] == -300)
        #expect(changes.last == 0)
        #expect(stretcher.speechLevel < 200)
    }
}
