import Foundation
import Testing
import ParleyAudio

@Suite struct ResamplerTests {
    /// Runs `input` (interleaved) through `resampler` in chunks of `chunk` frames; returns all output.
    static func run(_ resampler: Resampler, _ input: [Int16], chunk: Int) -> [Int16] {
        let c = resampler.channels
        var output: [Int16] = []
        var scratch = [Int16](repeating: 0, count: resampler.maximumOutputFrames(forInputFrames: chunk) * c)
        var position = 0
        input.withUnsafeBufferPointer { all in
            while position < all.count {
                let end = min(position + chunk * c, all.count)
                let (consumed, produced) = scratch.withUnsafeMutableBufferPointer {
                    resampler.process(UnsafeBufferPointer(rebasing: all[position..<end]), into: $0)
                }
                output += scratch[0..<(produced * c)]
                position += consumed * c
                if consumed == 0 && produced == 0 { break }
            }
        }
        return output
    }

    static func sine(_ frequency: Double, rate: Int, frames: Int, amplitude: Double = 10_000) -> [Int16] {
        (0..<frames).map { Int16(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
    }

    /// SNR in dB of `y` against `x` at the lag in `lags` that fits best, over `x[skip...]`.
    static func alignedSNR(_ x: [Int16], _ y: [Int16], lags: ClosedRange<Int>, skip: Int) -> (snr: Double, lag: Int) {
        var best = (snr: -Double.infinity, lag: 0)
        for lag in lags {
            var signal = 0.0, noise = 0.0
            for i in skip..<(x.count - lags.upperBound - skip) where i + lag < y.count {
                let d = Double(x[i]) - Double(y[i + lag])
                signal += Double(x[i]) * Double(x[i])
                noise += d * d
            }
            let snr = 10 * log10(signal / max(noise, 1e-9))
            if snr > best.snr { best = (snr, lag) }
        }
        return best
    }

    static func roundTripSNR(from high: Int, to low: Int, quality: Int) throws -> Double {
        let down = try Resampler(inputRate: high, outputRate: low, quality: quality)
        let up = try Resampler(inputRate: low, outputRate: high, quality: quality)
        let x = sine(1_000, rate: high, frames: high / 4)
        let y = run(up, run(down, x, chunk: high / 100), chunk: low / 100)
        // The sine repeats every 48 samples: any lag within one period past the latency aligns it.
        let latency = down.outputLatency * high / low + up.outputLatency
        return alignedSNR(x, y, lags: latency...(latency + 48), skip: high / 20).snr
    }

    @Test func sine48kTo16kAndBackKeepsOver40dB() throws {
        #expect(try Self.roundTripSNR(from: 48_000, to: 16_000, quality: Resampler.defaultQuality) > 40)
    }

    /// A chirp (no period) pins the alignment: the best lag is the latency the resamplers report.
    @Test func reportedLatencyAlignsTheOutput() throws {
        let down = try Resampler(inputRate: 48_000, outputRate: 16_000)
        let up = try Resampler(inputRate: 16_000, outputRate: 48_000)
        let x = CodecTestSignal.chirp(from: 200, to: 5_000, frames: 12_000)
        let y = Self.run(up, Self.run(down, x, chunk: 480), chunk: 160)
        let latency = down.outputLatency * 3 + up.outputLatency
        let best = Self.alignedSNR(x, y, lags: max(0, latency - 20)...(latency + 20), skip: 2_400)
        #expect(abs(best.lag - latency) <= 3, "lag \(best.lag), latency \(latency)")
        #expect(best.snr > 40)
    }

    @Test func sine48kTo8kAndBackKeepsOver40dB() throws {
        #expect(try Self.roundTripSNR(from: 48_000, to: 8_000, quality: Resampler.defaultQuality) > 40)
    }

    @Test func higherQualityIsCleaner() throws {
        let low = try Self.roundTripSNR(from: 48_000, to: 16_000, quality: 0)
        let mid = try Self.roundTripSNR(from: 48_000, to: 16_000, quality: 5)
        #expect(mid > low + 10)
    }

    @Test(arguments: [(8_000, 48_000), (48_000, 8_000), (44_100, 48_000), (48_000, 16_000), (16_000, 44_100)])
    func outputLengthFollowsTheRatio(rates: (Int, Int)) throws {
        let resampler = try Resampler(inputRate: rates.0, outputRate: rates.1)
        let input = Self.sine(440, rate: rates.0, frames: rates.0)  // one second
        let output = Self.run(resampler, input, chunk: 441)
        #expect(abs(output.count - rates.1) <= 2)
    }

    @Test func upsampling8kTo48kKeepsTheTone() throws {
        let resampler = try Resampler(inputRate: 8_000, outputRate: 48_000)
        let output = Self.run(resampler, Self.sine(1_000, rate: 8_000, frames: 4_000), chunk: 160)
        let reference = Self.sine(1_000, rate: 48_000, frames: 24_000)
        let latency = resampler.outputLatency
        #expect(Self.alignedSNR(reference, output, lags: latency...(latency + 48), skip: 2_400).snr > 40)
    }

    /// Left 440 Hz, right 1 500 Hz: after 48 → 16 kHz each channel keeps its tone and none of the other's.
    @Test func stereoChannelsStaySeparate() throws {
        let resampler = try Resampler(inputRate: 48_000, outputRate: 16_000, channels: 2)
        let left = Self.sine(440, rate: 48_000, frames: 24_000), right = Self.sine(1_500, rate: 48_000, frames: 24_000)
        var interleaved = [Int16](repeating: 0, count: 48_000)
        for i in 0..<24_000 {
            interleaved[2 * i] = left[i]
            interleaved[2 * i + 1] = right[i]
        }
        let output = Self.run(resampler, interleaved, chunk: 480)
        #expect(output.count == 16_000)
        let outLeft = stride(from: 1_000, to: output.count, by: 2).map { Double(output[$0]) }
        let outRight = stride(from: 1_001, to: output.count, by: 2).map { Double(output[$0]) }
        #expect(CodecTestSignal.power(outLeft, 440, rate: 16_000) > 1e6 * CodecTestSignal.power(outLeft, 1_500, rate: 16_000))
        #expect(CodecTestSignal.power(outRight, 1_500, rate: 16_000) > 1e6 * CodecTestSignal.power(outRight, 440, rate: 16_000))
    }

    /// ±1 % drift adjustment: one second of input yields 1 % more or fewer frames.
    @Test(arguments: [10_000, -10_000, 500])
    func driftAdjustmentChangesOutputLength(ppm: Int) throws {
        let resampler = try Resampler(inputRate: 48_000, outputRate: 48_000)
        resampler.setRateAdjustment(ppm: ppm)
        #expect(resampler.rateAdjustmentPPM == ppm)
        let output = Self.run(resampler, Self.sine(1_000, rate: 48_000, frames: 48_000), chunk: 480)
        #expect(abs(output.count - (48_000 + 48 * ppm / 1_000)) <= 3)
    }

    @Test func driftAdjustmentOn44kTo48kKeepsItsStep() throws {
        let resampler = try Resampler(inputRate: 44_100, outputRate: 48_000)
        resampler.setRateAdjustment(ppm: 1_000)
        let output = Self.run(resampler, Self.sine(1_000, rate: 44_100, frames: 441_000), chunk: 441)
        #expect(abs(output.count - 480_480) <= 4)
    }

    /// Changing the ratio mid-stream leaves no click: no sample step larger than the sine's own slope.
    @Test func driftAdjustmentIsClickFree() throws {
        let resampler = try Resampler(inputRate: 48_000, outputRate: 48_000)
        let amplitude = 10_000.0
        let input = Self.sine(1_000, rate: 48_000, frames: 48_000, amplitude: amplitude)
        var output: [Int16] = []
        for (index, ppm) in [0, 10_000, -10_000, 0].enumerated() {
            resampler.setRateAdjustment(ppm: ppm)
            output += Self.run(resampler, Array(input[(index * 12_000)..<((index + 1) * 12_000)]), chunk: 480)
        }
        let maxSlope = 2 * Double.pi * 1_000 / 48_000 * amplitude * 1.02 * 1.05
        let steps = zip(output.dropFirst(1_000), output.dropFirst(1_001)).map { abs(Double($1) - Double($0)) }
        #expect(steps.max() ?? .infinity < maxSlope)
    }

    @Test func resetClearsHistory() throws {
        let resampler = try Resampler(inputRate: 48_000, outputRate: 16_000)
        _ = Self.run(resampler, Self.sine(1_000, rate: 48_000, frames: 4_800), chunk: 480)
        resampler.reset()
        let silence = Self.run(resampler, [Int16](repeating: 0, count: 4_800), chunk: 480)
        #expect(silence.allSatisfy { $0 == 0 })
        #expect(silence.count == 1_600)
    }

    @Test func rejectsBadRates() {
        #expect(throws: (any Error).self) { try Resampler(inputRate: 0, outputRate: 48_000) }
        #expect(throws: (any Error).self) { try Resampler(inputRate: 48_000, outputRate: 16_000, channels: 3) }
    }
}
