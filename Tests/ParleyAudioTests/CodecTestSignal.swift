import Foundation
import ParleyAudio

/// Signals and measurements shared by the codec, resampler and send-stream tests.
enum CodecTestSignal {
    static func sine(_ frequency: Double, rate: Int = 48_000, frames: Int, amplitude: Double = 8_000) -> [Int16] {
        (0..<frames).map { Int16(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
    }

    /// A linear chirp from `from` to `to` Hz over `frames`.
    static func chirp(from: Double, to: Double, rate: Int = 48_000, frames: Int, amplitude: Double = 8_000) -> [Int16] {
        let duration = Double(frames) / Double(rate)
        return (0..<frames).map { n in
            let t = Double(n) / Double(rate)
            return Int16(amplitude * sin(2 * .pi * (from * t + (to - from) * t * t / (2 * duration))))
        }
    }

    /// Voiced, speech-like sound: harmonics of a gliding 110–160 Hz pitch with a formant-like
    /// spectral tilt, under a 3 Hz syllable envelope (10–100 %). SILK's VAD calls the loud 70 % of
    /// each syllable speech, so those frames carry LBRR when FEC is on.
    static func speechLike(rate: Int = 48_000, frames: Int, amplitude: Double = 6_000) -> [Int16] {
        var phase = 0.0
        var weights = [Double](repeating: 0, count: 21)
        return (0..<frames).map { n in
            let t = Double(n) / Double(rate)
            let f0 = 135 + 25 * sin(2 * .pi * 0.7 * t)
            if n % 240 == 0 {
                for h in 1...20 {
                    let f = f0 * Double(h)
                    let formants = exp(-pow((f - 600) / 250, 2)) + 0.6 * exp(-pow((f - 1_700) / 300, 2)) + 0.15
                    weights[h] = formants / Double(h).squareRoot()
                }
            }
            phase += 2 * .pi * f0 / Double(rate)
            var v = 0.0
            for h in 1...20 { v += weights[h] * sin(Double(h) * phase) }
            let envelope = 0.55 + 0.45 * sin(2 * .pi * 3 * t)
            return Int16(clamping: Int(amplitude * envelope * v / 2))
        }
    }

    /// Single-bin DFT power (Goertzel).
    static func power(_ x: [Double], _ frequency: Double, rate: Int) -> Double {
        let coefficient = 2 * cos(2 * .pi * frequency / Double(rate))
        var s1 = 0.0, s2 = 0.0
        for v in x {
            let s = v + coefficient * s1 - s2
            s2 = s1
            s1 = s
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }

    /// The strongest of 100…2000 Hz: a 20 Hz grid, then 1 Hz steps around the best.
    static func dominantFrequency(_ x: [Int16], rate: Int = 48_000) -> Double {
        let d = x.map(Double.init)
        func strongest(_ candidates: StrideThrough<Double>) -> Double {
            var best = (frequency: 0.0, power: -1.0)
            for f in candidates {
                let p = power(d, f, rate: rate)
                if p > best.power { best = (f, p) }
            }
            return best.frequency
        }
        let coarse = strongest(stride(from: 100.0, through: 2_000.0, by: 20.0))
        return strongest(stride(from: coarse - 20, through: coarse + 20, by: 1.0))
    }

    /// Normalised correlation of `x[range]` with `y` shifted by `lag`.
    static func correlation(_ x: [Int16], _ y: [Int16], lag: Int, range: Range<Int>) -> Double {
        var xy = 0.0, xx = 0.0, yy = 0.0
        for i in range where i + lag < y.count && i + lag >= 0 {
            let a = Double(x[i]), b = Double(y[i + lag])
            xy += a * b
            xx += a * a
            yy += b * b
        }
        return xx > 0 && yy > 0 ? xy / (xx * yy).squareRoot() : 0
    }

    /// The lag in `lags` at which `y` correlates best with `x[range]`.
    static func bestLag(_ x: [Int16], _ y: [Int16], lags: ClosedRange<Int>, range: Range<Int>) -> (lag: Int, correlation: Double) {
        var best = (lag: 0, correlation: -2.0)
        for lag in lags {
            let c = correlation(x, y, lag: lag, range: range)
            if c > best.correlation { best = (lag, c) }
        }
        return best
    }

    /// SNR in dB of `estimate` against `reference` (equal lengths).
    static func snr(reference: ArraySlice<Int16>, estimate: ArraySlice<Int16>) -> Double {
        var signal = 0.0, noise = 0.0
        for (r, e) in zip(reference, estimate) {
            signal += Double(r) * Double(r)
            noise += (Double(r) - Double(e)) * (Double(r) - Double(e))
        }
        return 10 * log10(max(signal, 1e-9) / max(noise, 1e-9))
    }
}
