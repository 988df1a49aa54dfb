import AudioCore
import ParleyCore

extension AudioCodecKind {
    /// The G.711 law of PCMU or PCMA; nil for Opus.
    public var g711Law: G711.Law? {
        switch self {
        case .pcmu: .muLaw
        case .pcma: .aLaw
        case .opus: nil
        }
    }
}

/// `AudioEncoder` for PCMU or PCMA (RFC 3551 §4.5.14): 8 kHz mono, one byte per sample, any frame length.
public final class G711AudioEncoder: AudioEncoder {
    public let kind: AudioCodecKind
    public let law: G711.Law
    public var sampleRate: Int { 8_000 }
    public var channels: Int { 1 }

    /// `kind` is `.pcmu` or `.pcma`.
    public init(kind: AudioCodecKind) throws(ParleyError) {
        guard let law = kind.g711Law else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "G.711 encoder for \(kind.rawValue)")
        }
        self.kind = kind
        self.law = law
    }

    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<UInt8>) throws(ParleyError) -> Int {
        guard output.count >= pcm.count else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "G.711: \(pcm.count) samples into \(output.count) bytes")
        }
        return G711.encode(pcm, law: law, into: output)
    }
}

/// `AudioDecoder` for PCMU or PCMA with a simplified ITU-T G.711 Appendix I concealment: a lost
/// stretch repeats the last pitch period found in the recent signal, at full level for 10 ms, then
/// fading by 20 % per 10 ms to silence at 60 ms; the first good frame after a loss is cross-faded in
/// from the concealed signal. FEC does not exist for G.711 (`recoverFromFEC` returns nil).
public final class G711AudioDecoder: AudioDecoder {
    public let kind: AudioCodecKind
    public let law: G711.Law
    public var sampleRate: Int { 8_000 }
    public var channels: Int { 1 }

    /// 48.75 ms of decoded history, as Appendix I keeps (enough for a 20 ms window at a 15 ms lag).
    static let historyLength = 390
    /// Pitch search range 5…15 ms (200…66 Hz), Appendix I §I.2.2.
    static let pitchRange = 40...120
    static let correlationWindow = 160
    /// Full level for 10 ms, then −20 % per 10 ms: silent after 60 ms.
    static let holdSamples = 80
    static let fadeSamples = 400

    private var history: [Int16]
    private var historyFilled = 0
    /// Samples concealed since the loss began (0 while audio flows).
    public private(set) var concealedRun = 0
    private var pitchPeriod = 0
    private var pitchPosition = 0
    private var pitchBuffer: [Int16]

    public init(kind: AudioCodecKind) throws(ParleyError) {
        guard let law = kind.g711Law else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "G.711 decoder for \(kind.rawValue)")
        }
        self.kind = kind
        self.law = law
        history = [Int16](repeating: 0, count: Self.historyLength)
        pitchBuffer = [Int16](repeating: 0, count: Self.pitchRange.upperBound)
    }

    public func frameSamples(in payload: UnsafeBufferPointer<UInt8>) -> Int? {
        payload.isEmpty ? nil : payload.count
    }

    public func decode(_ payload: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int {
        let n = G711.decode(payload, law: law, into: output)
        if concealedRun > 0 {
            // Appendix I §I.2.5: overlap-add 4 ms (plus 4 ms per further 10 ms lost, at most 10 ms).
            let length = min(n, min(80, 32 + concealedRun / 80 * 32))
            for i in 0..<length {
                let w = Double(i + 1) / Double(length + 1)
                let concealed = Double(nextConcealedSample())
                output[i] = Int16(clamping: Int((w * Double(output[i]) + (1 - w) * concealed).rounded()))
            }
            concealedRun = 0
        }
        remember(UnsafeBufferPointer(rebasing: output[0..<n]))
        return n
    }

    public func conceal(samplesPerChannel: Int, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let n = min(samplesPerChannel, output.count)
        if concealedRun == 0 { startConcealment() }
        for i in 0..<n { output[i] = nextConcealedSample() }
        return n
    }

    public func recoverFromFEC(in nextPayload: UnsafeBufferPointer<UInt8>, samplesPerChannel: Int,
                               into output: UnsafeMutableBufferPointer<Int16>) -> Int? { nil }

    /// The pitch period (samples) the current concealment repeats; 0 when none is running.
    public var concealmentPitch: Int { concealedRun > 0 ? pitchPeriod : 0 }

    // MARK: Concealment

    private func remember(_ samples: UnsafeBufferPointer<Int16>) {
        let h = Self.historyLength
        if samples.count >= h {
            for i in 0..<h { history[i] = samples[samples.count - h + i] }
        } else {
            let keep = h - samples.count
            for i in 0..<keep { history[i] = history[i + samples.count] }
            for i in 0..<samples.count { history[keep + i] = samples[i] }
        }
        historyFilled = min(h, historyFilled + samples.count)
    }

    /// Picks the lag in 5…15 ms whose past best matches the last 20 ms (normalised cross-correlation)
    /// and copies that last period into the pitch buffer.
    private func startConcealment() {
        let h = Self.historyLength, w = Self.correlationWindow
        var best = (lag: 0, score: -Double.infinity)
        if historyFilled >= w + Self.pitchRange.upperBound {
            for lag in Self.pitchRange {
                var correlation = 0.0, energy = 0.0
                for i in (h - w)..<h {
                    let past = Double(history[i - lag])
                    correlation += Double(history[i]) * past
                    energy += past * past
                }
                let score = energy > 0 ? correlation / energy.squareRoot() : 0
                if score > best.score { best = (lag, score) }
            }
        }
        pitchPeriod = best.lag > 0 ? best.lag : Self.pitchRange.upperBound
        for i in 0..<pitchPeriod { pitchBuffer[i] = history[h - pitchPeriod + i] }
        pitchPosition = 0
    }

    private func nextConcealedSample() -> Int16 {
        let n = concealedRun
        concealedRun += 1
        let excess = n - Self.holdSamples
        let gain = excess <= 0 ? 1.0 : max(0, 1 - Double(excess) / Double(Self.fadeSamples))
        guard gain > 0, pitchPeriod > 0 else { return 0 }
        let sample = pitchBuffer[pitchPosition]
        pitchPosition = (pitchPosition + 1) % pitchPeriod
        return Int16((Double(sample) * gain).rounded())
    }
}
