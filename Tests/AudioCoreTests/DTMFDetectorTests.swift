import AudioCore
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds test signals for the DTMF detector: keys, gaps, noise and speech-like sounds.
struct DTMFSignal {
    let sampleRate: Int
    var samples: [Int16] = []

    init(sampleRate: Int) { self.sampleRate = sampleRate }

    func frames(_ milliseconds: Double) -> Int { Int(Double(sampleRate) * milliseconds / 1_000) }

    /// Appends a key's dual tone at the given levels.
    mutating func key(_ digit: DTMFDigit, milliseconds: Double, low: Double = -8, high: Double = -6) {
        var tone = ToneGenerator(sampleRate: sampleRate,
                                 first: .init(frequency: digit.lowFrequency, levelDBFS: low),
                                 second: .init(frequency: digit.highFrequency, levelDBFS: high))
        samples += tone.samples(frames: frames(milliseconds))
    }

    mutating func silence(milliseconds: Double) {
        samples += [Int16](repeating: 0, count: frames(milliseconds))
    }

    /// Adds seeded white noise (uniform) `snrDB` below the signal's power.
    mutating func addNoise(snrDB: Double, seed: UInt64 = 42) {
        let signalPower = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))
        let noisePower = signalPower / pow10(snrDB / 10)
        let halfWidth = (3 * noisePower).squareRoot()   // uniform on ±w has power w²/3
        var random = SplitMix64(seed: seed)
        samples = samples.map { sample in
            let noise = (random.nextUnit() * 2 - 1) * halfWidth
            return Int16(clamping: Int((Double(sample) + noise).rounded()))
        }
    }
}

/// A small seeded generator (SplitMix64) so noise is the same on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

func pow10(_ x: Double) -> Double { pow(10, x) }

/// Runs the detector over `samples` fed in chunks of the given sizes (cycled).
func detect(_ samples: [Int16], sampleRate: Int, chunks: [Int] = [160],
            configuration: DTMFDetector.Configuration = .init()) -> [DTMFDetection] {
    var detector = DTMFDetector(sampleRate: sampleRate, configuration: configuration)
    var found: [DTMFDetection] = []
    var offset = 0
    var chunk = 0
    samples.withUnsafeBufferPointer { all in
        while offset < all.count {
            let size = min(chunks[chunk % chunks.count], all.count - offset)
            detector.process(UnsafeBufferPointer(rebasing: all[offset..<offset + size])) { found.append($0) }
            offset += size
            chunk += 1
        }
    }
    return found
}

@Suite struct DTMFDetectorTests {
    static let rates = [8_000, 16_000, 48_000]

    @Test(arguments: rates)
    func detectsEveryKeyAlone(sampleRate: Int) {
        for digit in DTMFDigit.allCases {
            var signal = DTMFSignal(sampleRate: sampleRate)
            signal.silence(milliseconds: 20)
            signal.key(digit, milliseconds: 100)
            signal.silence(milliseconds: 50)
            let found = detect(signal.samples, sampleRate: sampleRate)
            #expect(found.map(\.digit) == [digit], "\(digit) at \(sampleRate) Hz")
        }
    }

    @Test(arguments: rates)
    func detectsASequenceWithGaps(sampleRate: Int) {
        let keys = "0123456789*#ABCD".map { DTMFDigit(character: $0)! }
        var signal = DTMFSignal(sampleRate: sampleRate)
        signal.silence(milliseconds: 20)
        var starts: [Int] = []
        for digit in keys {
            starts.append(signal.samples.count)
            signal.key(digit, milliseconds: 60)
            signal.silence(milliseconds: 50)
        }
        let found = detect(signal.samples, sampleRate: sampleRate, chunks: [sampleRate / 50])
        #expect(found.map(\.digit) == keys)
        // The reported start is within 5 ms of the real one.
        for (detection, start) in zip(found, starts) {
            #expect(abs(Int(detection.startSample) - start) <= sampleRate / 200, "\(detection) vs \(start)")
        }
    }

    @Test func repeatedKeyWithStandardGapIsTwoKeys() {
        var signal = DTMFSignal(sampleRate: 8_000)
        for _ in 0..<3 {
            signal.key(.five, milliseconds: 50)
            signal.silence(milliseconds: 40)
        }
        #expect(detect(signal.samples, sampleRate: 8_000).map(\.digit) == [.five, .five, .five])
    }

    @Test func shortDropoutInsideATonesIsBridged() {
        var signal = DTMFSignal(sampleRate: 8_000)
        signal.key(.seven, milliseconds: 60)
        signal.silence(milliseconds: 10)
        signal.key(.seven, milliseconds: 60)
        signal.silence(milliseconds: 60)
        #expect(detect(signal.samples, sampleRate: 8_000).map(\.digit) == [.seven])
    }

    @Test(arguments: rates)
    func detectsKeysInWhiteNoiseAt20dBSNR(sampleRate: Int) {
        let keys: [DTMFDigit] = [.one, .five, .nine, .star, .zero, .pound, .d]
        var signal = DTMFSignal(sampleRate: sampleRate)
        signal.silence(milliseconds: 30)
        for digit in keys {
            signal.key(digit, milliseconds: 70)
            signal.silence(milliseconds: 60)
        }
        // The SNR is against the average power of the whole signal, tones and gaps together, so
        // the tones themselves stand about 20 dB above the noise.
        signal.addNoise(snrDB: 20, seed: UInt64(sampleRate))
        #expect(detect(signal.samples, sampleRate: sampleRate).map(\.digit) == keys)
    }

    @Test(arguments: [[1], [7, 13, 1], [101, 3, 999], [4_096]])
    func toneSplitAcrossOddBufferSizesGivesTheSameResult(chunks: [Int]) {
        var signal = DTMFSignal(sampleRate: 16_000)
        signal.silence(milliseconds: 7)
        signal.key(.eight, milliseconds: 45)
        signal.silence(milliseconds: 40)
        signal.key(.c, milliseconds: 80)
        signal.silence(milliseconds: 40)
        let whole = detect(signal.samples, sampleRate: 16_000, chunks: [signal.samples.count])
        let split = detect(signal.samples, sampleRate: 16_000, chunks: chunks)
        #expect(whole.map(\.digit) == [.eight, .c])
        #expect(split == whole)
    }

    @Test(arguments: rates)
    func fortyMillisecondTonesAreDetectedAtAnyAlignment(sampleRate: Int) {
        let detector = DTMFDetector(sampleRate: sampleRate)
        for shift in stride(from: 0, to: detector.hopSize, by: max(1, detector.hopSize / 8)) {
            var signal = DTMFSignal(sampleRate: sampleRate)
            signal.samples = [Int16](repeating: 0, count: shift)
            signal.key(.two, milliseconds: 40)
            signal.silence(milliseconds: 50)
            #expect(detect(signal.samples, sampleRate: sampleRate).map(\.digit) == [.two], "shift \(shift)")
        }
    }

    @Test func acceptsTwistWithinLimits() {
        for (low, high) in [(-10.0, -3.0), (-4.0, -7.0), (-20.0, -20.0)] {
            var signal = DTMFSignal(sampleRate: 8_000)
            signal.key(.six, milliseconds: 80, low: low, high: high)
            signal.silence(milliseconds: 40)
            #expect(detect(signal.samples, sampleRate: 8_000).map(\.digit) == [.six], "low \(low) high \(high)")
        }
    }

    @Test func processReturningArrayMatchesCallbackAndResetRestarts() {
        var signal = DTMFSignal(sampleRate: 8_000)
        signal.key(.three, milliseconds: 60)
        signal.silence(milliseconds: 40)
        var detector = DTMFDetector(sampleRate: 8_000)
        let first = detector.process(signal.samples)
        detector.reset()
        let second = detector.process(signal.samples)
        #expect(first.map(\.digit) == [.three])
        #expect(first == second)
        #expect(detector.windowSize == 102 && detector.hopSize == 25)
        #expect(DTMFDetector(sampleRate: 48_000).windowSize == 612)
    }
}
