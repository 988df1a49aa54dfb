#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Time-scale modification of decoded PCM for jitter-buffer delay adaptation: shortens
/// ("accelerate") or lengthens ("expand") a frame by about one pitch period, the way NetEq's
/// accelerate and preemptive-expand do.
///
/// The period is found by normalized autocorrelation between 2.5 and 15 ms, first on a signal
/// decimated to about 8 kHz, then refined at the full rate around the best coarse lag. One
/// period is then removed (the period and the next are cross-faded into one) or repeated (the
/// junction is cross-faded over a period), so a periodic signal keeps its pitch and the output has
/// no discontinuity. A frame that is nearly silent, or quiet against the recent speech level, has
/// samples dropped or inserted the same way, without a pitch; a frame that is neither quiet nor
/// periodic enough is left alone. `apply` carries out a jitter buffer's request and keeps the
/// speech level; a request that is not urgent waits for a pause (`pauseMs` of quiet).
///
/// Works in place on interleaved 16-bit PCM, mono or stereo; the scratch buffers are allocated once.
public struct TimeStretcher: Sendable {
    public static let minimumPeriodMs = 2.5
    public static let maximumPeriodMs = 15.0

    public let sampleRate: Int
    public let channels: Int
    /// Largest frame (samples per channel) the scratch buffers were sized for; longer frames are
    /// left alone.
    public let maxFrameSamples: Int
    /// Normalized correlation a frame must reach at its period to be stretched.
    public var correlationThreshold: Float = 0.6
    /// RMS under which a frame counts as silence (about −54 dBFS).
    public var silenceRMS: Float = 64
    /// A frame this far under the speech level (RMS ratio; 0.05 is −26 dB) counts as quiet.
    public var quietRatio: Float = 0.05
    /// The speech level: the RMS of the loudest recent frame, halving every `levelHalfLifeMs`.
    public private(set) var speechLevel: Float = 0
    public static let levelHalfLifeMs = 2_000.0
    /// A request that is not urgent waits until the quiet has lasted this long (a pause between
    /// phrases, not the closure of a stop consonant).
    public var pauseMs = 100.0
    /// Samples per channel of quiet so far, this frame included.
    private var quietRun = 0

    private let decimation: Int
    private var mono: [Float]
    private var decimated: [Float]
    private var coarseCorrelations: [Float]

    public init(sampleRate: Int, channels: Int = 1, maxFrameSamples: Int? = nil) {
        self.sampleRate = max(sampleRate, 1)
        self.channels = min(max(channels, 1), 2)
        self.maxFrameSamples = maxFrameSamples ?? self.sampleRate * 120 / 1000
        decimation = max(self.sampleRate / 8_000, 1)
        mono = [Float](repeating: 0, count: self.maxFrameSamples)
        decimated = [Float](repeating: 0, count: self.maxFrameSamples / decimation + 1)
        coarseCorrelations = [Float](repeating: 0, count: self.maxFrameSamples / decimation + 2)
    }

    /// Carries out `request` on the `samplesPerChannel` frames at the start of `pcm` (which must
    /// have room for an expanded frame) and tracks the speech level; call it for every decoded
    /// frame. Returns the change in samples per channel: negative removed, positive inserted.
    public mutating func apply(_ request: TimeStretchRequest, to pcm: UnsafeMutableBufferPointer<Int16>,
                               samplesPerChannel n: Int) -> Int {
        guard n > 0, n <= maxFrameSamples, pcm.count >= n * channels else { return 0 }
        let quiet = trackLevel(pcm, n: n)
        quietRun = quiet ? quietRun + n : 0
        let pause = quietRun * 1_000 >= Int(pauseMs * Double(sampleRate))
        switch request {
        case .none:
            return 0
        case .accelerate(let maxSamples, let urgent):
            guard urgent || pause else { return 0 }
            return -accelerate(pcm, samplesPerChannel: n, maxRemoved: maxSamples, quiet: quiet)
        case .expand(let maxSamples, let urgent):
            guard urgent || pause else { return 0 }
            return expand(pcm, samplesPerChannel: n, maxInserted: maxSamples, quiet: quiet)
        }
    }

    /// Updates the speech level with this frame; true if the frame is quiet (silent, or
    /// `quietRatio` under the level).
    private mutating func trackLevel(_ pcm: UnsafeMutableBufferPointer<Int16>, n: Int) -> Bool {
        var energy: Float = 0
        for i in 0..<(n * channels) {
            let s = Float(pcm[i])
            energy += s * s
        }
        let rms = (energy / Float(n * channels)).squareRoot()
        let halfLives = Double(n) * 1_000 / Double(sampleRate) / Self.levelHalfLifeMs
        speechLevel = max(rms, speechLevel * Float(pow(0.5, halfLives)))
        return rms < silenceRMS || rms < speechLevel * quietRatio
    }

    private var minimumPeriod: Int { Int(Double(sampleRate) * Self.minimumPeriodMs / 1_000) }
    private var maximumPeriod: Int { Int(Double(sampleRate) * Self.maximumPeriodMs / 1_000) }

    /// Removes about one pitch period, at most `maxRemoved` samples per channel, from the
    /// `samplesPerChannel` frames at the start of `pcm`. Returns the samples per channel removed
    /// (0 when the frame is left alone); the frame now has `samplesPerChannel` minus that.
    /// A `quiet` frame is shortened without a pitch (cross-faded over the whole removal).
    public mutating func accelerate(_ pcm: UnsafeMutableBufferPointer<Int16>, samplesPerChannel n: Int,
                                    maxRemoved: Int, quiet: Bool = false) -> Int {
        guard let period = choosePeriod(pcm, n: n, limit: maxRemoved, quiet: quiet) else { return 0 }
        let ch = channels
        // y[j] = x[j] fading into x[j + L] over one period, then the rest from 2L on.
        for j in 0..<period {
            let w = (Float(j) + 0.5) / Float(period)
            for c in 0..<ch {
                let a = Float(pcm[j * ch + c]), b = Float(pcm[(j + period) * ch + c])
                pcm[j * ch + c] = Self.clamp(a * (1 - w) + b * w)
            }
        }
        for i in (period * ch)..<((n - period) * ch) { pcm[i] = pcm[i + period * ch] }
        return period
    }

    /// Repeats about one pitch period, at most `maxInserted` samples per channel, in the
    /// `samplesPerChannel` frames at the start of `pcm`, which must have room for the longer frame.
    /// Returns the samples per channel inserted (0 when the frame is left alone).
    /// A `quiet` frame is lengthened without a pitch.
    public mutating func expand(_ pcm: UnsafeMutableBufferPointer<Int16>, samplesPerChannel n: Int,
                                maxInserted: Int, quiet: Bool = false) -> Int {
        let room = pcm.count / channels - n
        guard let period = choosePeriod(pcm, n: n, limit: min(maxInserted, room), quiet: quiet) else { return 0 }
        let ch = channels
        // y = x[0..<2L] with its second period fading into a repeat of the first, then x[L...].
        var i = n * ch - 1
        while i >= period * ch {
            pcm[i + period * ch] = pcm[i]
            i -= 1
        }
        for j in 0..<period {
            let w = (Float(j) + 0.5) / Float(period)
            for c in 0..<ch {
                let a = Float(pcm[(period + j) * ch + c]), b = Float(pcm[j * ch + c])
                pcm[(period + j) * ch + c] = Self.clamp(a * (1 - w) + b * w)
            }
        }
        return period
    }

    /// The length to remove or insert: a pitch period within [2.5 ms, min(15 ms, limit, n/2)]
    /// correlating well enough, or for a silent or `quiet` frame simply min(limit, n/2); nil to
    /// leave it alone.
    private mutating func choosePeriod(_ pcm: UnsafeMutableBufferPointer<Int16>, n: Int, limit: Int,
                                       quiet: Bool) -> Int? {
        guard n > 1, n <= maxFrameSamples, pcm.count >= n * channels else { return nil }
        let upper = min(limit, n / 2)
        guard upper >= 1 else { return nil }
        if quiet { return upper }
        var energy: Float = 0
        for i in 0..<n {
            var s: Float = 0
            for c in 0..<channels { s += Float(pcm[i * channels + c]) }
            s /= Float(channels)
            mono[i] = s
            energy += s * s
        }
        if energy / Float(n) < silenceRMS * silenceRMS { return upper }
        let maxLag = min(maximumPeriod, upper)
        guard maxLag >= minimumPeriod else { return nil }
        let (lag, correlation) = findPeriod(n: n, minLag: minimumPeriod, maxLag: maxLag)
        return correlation >= correlationThreshold ? lag : nil
    }

    /// Best lag in [minLag, maxLag] of `mono[0..<n]` by normalized autocorrelation: coarse on the
    /// decimated signal, taking the first local maximum within 10 % of the best (the fundamental,
    /// not a multiple), then refined at the full rate.
    private mutating func findPeriod(n: Int, minLag: Int, maxLag: Int) -> (lag: Int, correlation: Float) {
        let k = decimation
        let m = n / k
        for i in 0..<m {
            var s: Float = 0
            for j in 0..<k { s += mono[i * k + j] }
            decimated[i] = s
        }
        let coarseMin = max((minLag + k - 1) / k, 1), coarseMax = maxLag / k
        var coarse = minLag
        if coarseMax >= coarseMin, m - coarseMax > 0 {
            let window = m - coarseMax
            var best: Float = -1
            for lag in coarseMin...coarseMax {
                let c = Self.correlation(decimated, lag: lag, window: window)
                coarseCorrelations[lag] = c
                best = max(best, c)
            }
            // The first local maximum close to the best: the fundamental rather than a multiple.
            for lag in coarseMin...coarseMax {
                let c = coarseCorrelations[lag]
                let rising = lag == coarseMin || c >= coarseCorrelations[lag - 1]
                let falling = lag == coarseMax || c >= coarseCorrelations[lag + 1]
                if rising, falling, c >= best * 0.9 {
                    coarse = lag * k
                    break
                }
            }
        }
        var bestLag = coarse, bestCorrelation: Float = -1
        let window = n - maxLag
        let low = max(coarse - k, minLag), high = max(min(coarse + k, maxLag), low)
        for lag in low...high {
            let c = Self.correlation(mono, lag: lag, window: window)
            if c > bestCorrelation { (bestLag, bestCorrelation) = (lag, c) }
        }
        return (bestLag, bestCorrelation)
    }

    private static func correlation(_ x: [Float], lag: Int, window: Int) -> Float {
        var dot: Float = 0, e0: Float = 0, e1: Float = 0
        for i in 0..<window {
            let a = x[i], b = x[i + lag]
            dot += a * b
            e0 += a * a
            e1 += b * b
        }
        let norm = (e0 * e1).squareRoot()
        return norm > 0 ? dot / norm : 0
    }

    private static func clamp(_ v: Float) -> Int16 { Int16(max(-32_768, min(32_767, v.rounded()))) }
}
