import AudioCore
import Foundation
import NetworkConditioner
import ParleyAudio
import ParleyTestSupport
import Testing

/// A WAV file through the whole audio path: encode (Opus, RED, FEC) → lossy, jittery channel →
/// jitter buffer → decode; what plays out is compared with what went in.
@Suite struct AudioPathTests {
    static let rate = AudioPathSimulation.rate
    /// Tones of 200 ms each with a smooth envelope: a signal whose content is known at every instant.
    static let melody: [Double] = [330, 523, 392, 660, 294, 440, 587, 349, 494, 262]

    /// The melody as a 48 kHz mono WAV file, parsed back (the file is the microphone).
    static func inputFromWAV() throws -> [Int16] {
        let segment = rate / 5
        var samples: [Int16] = []
        for f in melody {
            for n in 0..<segment {
                let envelope = sin(Double.pi * Double(n) / Double(segment))
                samples.append(Int16(12_000 * envelope * sin(2 * .pi * f * Double(n) / Double(rate))))
            }
        }
        let file = WAVFile(sampleRate: rate, channels: 1, samples: samples).serialized
        return try WAVFile(parsing: file).samples
    }

    /// Correlation of `input[range]` with the output at `lag` samples later.
    static func correlation(_ input: [Int16], _ output: [Int16], _ range: Range<Int>, lag: Int, step: Int = 1) -> Double {
        var xy = 0.0, xx = 0.0, yy = 0.0
        for i in stride(from: range.lowerBound, to: range.upperBound, by: step) where i + lag >= 0 && i + lag < output.count {
            let x = Double(input[i]), y = Double(output[i + lag])
            xy += x * y; xx += x * x; yy += y * y
        }
        return xy / max((xx * yy).squareRoot(), 1)
    }

    /// The lag within `lags` where `input[range]` best matches the output, and the correlation there.
    static func align(_ input: [Int16], _ output: [Int16], _ range: Range<Int>, lags: ClosedRange<Int>) -> (lag: Int, correlation: Double) {
        var best = (lag: lags.lowerBound, correlation: -1.0)
        // Coarse (every 8th lag on every 16th sample), then exact around the best.
        for lag in stride(from: lags.lowerBound, through: lags.upperBound, by: 8) {
            let c = correlation(input, output, range, lag: lag, step: 16)
            if c > best.correlation { best = (lag, c) }
        }
        best.correlation = -1
        for lag in (best.lag - 8)...(best.lag + 8) {
            let c = correlation(input, output, range, lag: lag, step: 2)
            if c > best.correlation { best = (lag, c) }
        }
        return best
    }

    /// Per note: its correlation with the output, aligned note by note (the jitter buffer may
    /// shift the timeline by a few ms when it adapts its delay).
    static func noteCorrelations(_ input: [Int16], _ output: [Int16]) -> (lag: Int, correlations: [Double]) {
        let global = align(input, output, 0..<input.count, lags: 0...(rate / 5))
        let segment = rate / 5
        let correlations = melody.indices.map { i in
            align(input, output, (i * segment)..<((i + 1) * segment), lags: max(0, global.lag - rate / 40)...(global.lag + rate / 40)).correlation
        }
        return (global.lag, correlations)
    }

    /// The strongest frequency of `samples` among the melody's notes (Goertzel power).
    static func dominantNote(_ samples: ArraySlice<Int16>) -> Double {
        melody.max { power(samples, $0) < power(samples, $1) }!
    }

    static func power(_ samples: ArraySlice<Int16>, _ frequency: Double) -> Double {
        let k = 2 * cos(2 * .pi * frequency / Double(rate))
        var s1 = 0.0, s2 = 0.0
        for x in samples {
            let s = Double(x) + k * s1 - s2
            s2 = s1; s1 = s
        }
        return s1 * s1 + s2 * s2 - k * s1 * s2
    }

    @Test func cleanChannelReproducesTheInput() throws {
        let input = try Self.inputFromWAV()
        let result = try AudioPathSimulation.run(input: input)
        let (lag, correlations) = Self.noteCorrelations(input, result.output)
        #expect(correlations.min()! > 0.9)
        #expect(result.receive.jitterBuffer.concealedSamples == 0)
        #expect(lag < Self.rate / 10)
    }

    @Test func lossAndJitterAreRepairedByRedundancy() throws {
        let input = try Self.inputFromWAV()
        var options = AudioPathSimulation.Options()
        options.conditions = NetworkConditions(loss: .random(percent: 10), jitterMicroseconds: 20_000, allowsReordering: true)
        options.seed = 7
        let result = try AudioPathSimulation.run(input: input, options: options)
        #expect(result.network.droppedByLoss > 5)
        #expect(result.receive.jitterBuffer.redRecoveredFrames > 0)
        let (lag, correlations) = Self.noteCorrelations(input, result.output)
        #expect(correlations.sorted()[correlations.count / 2] > 0.8)
        // Every note is heard at its place: the dominant frequency of each 200 ms segment's middle.
        let segment = Self.rate / 5
        for (i, note) in Self.melody.enumerated() {
            let start = lag + i * segment + segment / 4
            #expect(Self.dominantNote(result.output[start..<(start + segment / 2)]) == note)
        }
    }

    @Test func withoutRedundancyTheSameLossIsConcealedNotRecovered() throws {
        let input = try Self.inputFromWAV()
        var options = AudioPathSimulation.Options()
        options.conditions = NetworkConditions(loss: .random(percent: 10))
        options.redDistance = 0
        options.fec = .off
        options.seed = 7
        let plain = try AudioPathSimulation.run(input: input, options: options)
        options.redDistance = 2
        let redundant = try AudioPathSimulation.run(input: input, options: options)
        #expect(plain.receive.jitterBuffer.concealedSamples > 4 * max(redundant.receive.jitterBuffer.concealedSamples, 1))
        let plainMedian = Self.noteCorrelations(input, plain.output).correlations.sorted()[Self.melody.count / 2]
        let redundantMedian = Self.noteCorrelations(input, redundant.output).correlations.sorted()[Self.melody.count / 2]
        #expect(redundantMedian > plainMedian)
    }
}
