#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Call-progress ringback, as the caller hears it while the callee rings: the summed tones of
/// `region` switched on and off in its cadence, forever.
///
/// - `.us`: 440 + 480 Hz, 2 s on, 4 s off (ANSI T1.401; "audible ringing").
/// - `.uk`: 400 + 450 Hz, 0.4 s on, 0.2 s off, 0.4 s on, 2 s off (BT SIN 350).
/// - `.europe`: 425 Hz, 1 s on, 4 s off (ETSI TR 101 041 / CEPT).
///
/// Each tone is at `levelDBm0` (−19 dBm0 by default, the North American level); a sine at 0 dBm0
/// peaks 3.17 dB below full scale (ITU-T G.711). The signal is one precomputed period of the
/// tone sum, looped, so a ringing call costs a copy per frame and no trigonometry; edges are
/// ramped over 2.5 ms so the cadence does not click.
public struct RingbackSource: AudioSource {
    public enum Region: String, Hashable, Sendable, CaseIterable {
        case us, uk, europe

        /// Tone frequencies in hertz.
        public var frequencies: [Int] {
            switch self {
            case .us: [440, 480]
            case .uk: [400, 450]
            case .europe: [425]
            }
        }

        /// On and off durations in milliseconds, alternating, starting with on.
        public var cadenceMilliseconds: [Int] {
            switch self {
            case .us: [2_000, 4_000]
            case .uk: [400, 200, 400, 2_000]
            case .europe: [1_000, 4_000]
            }
        }
    }

    public let region: Region
    private var tone: CadencedTone

    public init(region: Region = .us, levelDBm0: Double = -19) {
        self.region = region
        let cadence = region.cadenceMilliseconds.map { $0 * MediaAudio.sampleRate / 1000 }
        tone = CadencedTone(period: PeriodicTone.table(frequencies: region.frequencies, levelDBm0: levelDBm0),
                            cadence: cadence, repeats: true)
    }

    public mutating func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
        tone.render(into: buffer) > 0
    }

    public mutating func readSamples(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        tone.render(into: buffer)
    }
}

/// A steady tone for a fixed time: the beep before `<Record>`, or what the engine plays when
/// speech is unavailable. Integer frequencies only (the period is precomputed).
public struct ToneSource: AudioSource {
    private var tone: CadencedTone

    public init(frequencies: [Int], seconds: Double, levelDBm0: Double = -10) {
        let length = MediaAudio.samples(seconds: seconds)
        tone = CadencedTone(period: PeriodicTone.table(frequencies: frequencies, levelDBm0: levelDBm0),
                            cadence: [length, 0], repeats: false)
    }

    /// Twilio's `<Record playBeep>`-like beep: 1 kHz for half a second.
    public static func beep() -> ToneSource { ToneSource(frequencies: [1_000], seconds: 0.5) }

    public mutating func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Bool {
        tone.render(into: buffer) > 0
    }

    public mutating func readSamples(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        tone.render(into: buffer)
    }
}

/// One exact period of a sum of integer-frequency sines at 48 kHz.
enum PeriodicTone {
    /// Peak of a 0 dBm0 sine relative to full scale (G.711: +3.17 dBm0 is the largest sine).
    static let dBm0ToDBFS = -3.17

    static func table(frequencies: [Int], levelDBm0: Double) -> [Int16] {
        let rate = MediaAudio.sampleRate
        let valid = frequencies.filter { $0 > 0 && $0 < rate / 2 }
        guard !valid.isEmpty else { return [0] }
        var g = rate
        for f in valid { g = gcd(g, f) }
        let period = rate / g  // whole cycles of every tone fit in `period` samples
        let amplitude = 32_767 * pow(10, min(levelDBm0 + dBm0ToDBFS, 0) / 20)
        return (0..<period).map { n in
            var value = 0.0
            for f in valid { value += amplitude * sin(2 * Double.pi * Double(f * n % rate) / Double(rate)) }
            return Int16(clamping: Int(value.rounded()))
        }
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}

/// Plays a looped tone period through an on/off cadence with 2.5 ms linear ramps at each edge.
struct CadencedTone: Sendable {
    static let rampSamples = 120

    private let period: [Int16]
    /// Alternating on/off lengths in samples, starting with on.
    private let cadence: [Int]
    private let repeats: Bool
    private var periodPosition = 0
    private var segment = 0
    private var segmentPosition = 0
    private var ended = false

    init(period: [Int16], cadence: [Int], repeats: Bool) {
        self.period = period.isEmpty ? [0] : period
        self.cadence = cadence.map { max(0, $0) }
        self.repeats = repeats && cadence.contains { $0 > 0 }
    }

    /// Fills `buffer`; returns the samples that belong to the tone (its cadence included) before
    /// a non-repeating tone ends.
    mutating func render(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        var index = 0
        while index < buffer.count, !ended {
            guard segment < cadence.count else {
                if repeats { segment = 0 } else { ended = true }
                continue
            }
            let length = cadence[segment]
            let count = min(length - segmentPosition, buffer.count - index)
            if segment % 2 == 0 {
                for i in 0..<count { buffer[index + i] = sample(at: segmentPosition + i, of: length) }
            } else {
                UnsafeMutableBufferPointer(rebasing: buffer[index..<index + count]).update(repeating: 0)
                periodPosition = (periodPosition + count) % period.count
            }
            index += count
            segmentPosition += count
            if segmentPosition >= length {
                segment += 1
                segmentPosition = 0
            }
        }
        if index < buffer.count {
            UnsafeMutableBufferPointer(rebasing: buffer[index...]).update(repeating: 0)
        }
        return index
    }

    private mutating func sample(at position: Int, of length: Int) -> Int16 {
        let value = period[periodPosition]
        periodPosition += 1
        if periodPosition == period.count { periodPosition = 0 }
        let edge = min(position, length - 1 - position)
        guard edge < Self.rampSamples else { return value }
        return Int16(Int(value) * (edge + 1) / (Self.rampSamples + 1))
    }
}
