#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A key the in-band detector recognised.
public struct DTMFDetection: Hashable, Sendable, CustomStringConvertible {
    public var digit: DTMFDigit
    /// Estimated first sample of the tone, counted from the first sample fed to the detector.
    public var startSample: Int64
    /// The sample count at which the tone had lasted the minimum duration and was reported.
    public var reportedAtSample: Int64

    public init(digit: DTMFDigit, startSample: Int64, reportedAtSample: Int64) {
        self.digit = digit
        self.startSample = startSample
        self.reportedAtSample = reportedAtSample
    }

    public var description: String { "\(digit) at sample \(startSample)" }
}

/// In-band DTMF detection (Goertzel) on mono 16-bit PCM at 8 kHz or more, fed in buffers of any
/// size, for legs without RFC 4733 telephone events.
///
/// The signal is cut into overlapping windows of 12.75 ms (102 samples at 8 kHz, scaled with the
/// rate; the hop is a quarter window). In each window the eight DTMF frequencies are measured with
/// the Goertzel algorithm, and the window is a hit for a key when the strongest row and column
///   - are both above `minimumToneLevelDBFS`,
///   - have a twist (column − row level) within +`maximumNormalTwistDB` / −`maximumReverseTwistDB`,
///   - each stand `relativePeakDB` above the other rows / columns,
///   - carry at least `minimumEnergyRatio` of the window's energy (rejects noise and speech),
///   - and have second harmonics at least `harmonicRejectionDB` below them (rejects voices, whose
///     harmonics come in series; the row test allows for the column tone's leakage, see `columnLeak`).
/// A key is reported once, when its hits add up to `minimumToneMilliseconds`; it ends after
/// `minimumPauseMilliseconds` without hits, and only then can the next key (or the same again) start.
/// Shorter dropouts inside a tone are bridged. Steady-state processing allocates nothing.
public struct DTMFDetector: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// Weakest tone (peak level of each of the two) that counts.
        public var minimumToneLevelDBFS: Double = -33
        /// How much louder the high group may be than the low group (normal twist).
        public var maximumNormalTwistDB: Double = 8
        /// How much louder the low group may be than the high group (reverse twist).
        public var maximumReverseTwistDB: Double = 4
        /// How far the strongest row (column) must stand above every other row (column).
        public var relativePeakDB: Double = 6
        /// Share of the window's energy the two tones must carry, 0–1.
        public var minimumEnergyRatio: Double = 0.8
        /// How far below its fundamental each second harmonic must be.
        public var harmonicRejectionDB: Double = 15
        /// Shortest tone reported (ITU-T Q.24 asks for 40 ms).
        public var minimumToneMilliseconds: Double = 40
        /// Shortest silence that separates two keys; shorter dropouts are bridged.
        public var minimumPauseMilliseconds: Double = 30

        public init() {}
    }

    public let sampleRate: Int
    public let configuration: Configuration
    /// Samples per analysis window (102 at 8 kHz, 204 at 16 kHz, 612 at 48 kHz).
    public let windowSize: Int
    /// Samples between the starts of two windows (a quarter window).
    public let hopSize: Int

    private let windowHitsToReport: Int
    private let windowMissesToEnd: Int
    private let fundamentalCoefficients: [Double]   // 4 rows then 4 columns: 2 cos(2πf/fs)
    private let harmonicCoefficients: [Double]      // the same at 2f
    private let columnLeakIntoRowHarmonic: [Double]  // [row * 4 + column]: amplitude ratio, see init
    private let minimumPower: Double
    private let normalTwist: Double, reverseTwist: Double, relativePeak: Double, harmonicLimit: Double

    private var history: [Double]                   // circular, oldest sample at `writeIndex`
    private var writeIndex = 0
    private var filled = 0
    private var sinceAnalysis = 0
    private var position: Int64 = 0
    private var tracker = HitTracker()

    /// A detector for mono PCM at `sampleRate` (at least 8 000 so the second harmonics are below Nyquist).
    public init(sampleRate: Int, configuration: Configuration = Configuration()) {
        precondition(sampleRate >= 8_000, "DTMFDetector needs a sample rate of at least 8 kHz")
        self.sampleRate = sampleRate
        self.configuration = configuration
        windowSize = max(32, Int((102.0 * Double(sampleRate) / 8_000).rounded()))
        hopSize = max(1, windowSize / 4)

        let windowMs = 1_000 * Double(windowSize) / Double(sampleRate)
        let hopMs = 1_000 * Double(hopSize) / Double(sampleRate)
        // A window passes while the tone covers about `minimumEnergyRatio` of it, so a tone (or a
        // pause) of D ms yields about (D − (2·ratio − 1)·window) / hop passing (failing) windows;
        // one less absorbs the rounding of where windows fall.
        let edge = max(0, 2 * configuration.minimumEnergyRatio - 1) * windowMs
        windowHitsToReport = max(2, Int(((configuration.minimumToneMilliseconds - edge) / hopMs).rounded(.down)) - 1)
        windowMissesToEnd = max(2, Int(((configuration.minimumPauseMilliseconds + edge) / hopMs).rounded(.down)) - 1)

        let frequencies = DTMFDigit.rowFrequencies + DTMFDigit.columnFrequencies
        fundamentalCoefficients = frequencies.map { Self.coefficient($0, sampleRate) }
        harmonicCoefficients = frequencies.map { Self.coefficient(2 * $0, sampleRate) }
        // Goertzel power of a sine of peak A at its own frequency over N samples is (A·N/2)².
        let minimumAmplitude = 32_767 * pow(10, configuration.minimumToneLevelDBFS / 20)
        minimumPower = (minimumAmplitude * Double(windowSize) / 2) * (minimumAmplitude * Double(windowSize) / 2)
        normalTwist = Self.linear(dB: configuration.maximumNormalTwistDB)
        reverseTwist = Self.linear(dB: configuration.maximumReverseTwistDB)
        relativePeak = Self.linear(dB: configuration.relativePeakDB)
        harmonicLimit = Self.linear(dB: -configuration.harmonicRejectionDB)
        history = [Double](repeating: 0, count: windowSize)
        columnLeakIntoRowHarmonic = Self.columnLeak(windowSize: windowSize, sampleRate: sampleRate,
                                                    fundamentals: fundamentalCoefficients, harmonics: harmonicCoefficients)
    }

    /// Row second harmonics lie 58–93 Hz from a column (2×697 = 1394 next to 1336, 1540 next to
    /// 1477, 1704 next to 1633), closer than one bin of a 12.75 ms window, so a clean key's column
    /// tone shows at its row's harmonic. This measures, for each row and column, the largest
    /// amplitude the column tone puts into the row's harmonic relative to its own (over 8 phases),
    /// so the harmonic test can allow for it.
    private static func columnLeak(windowSize: Int, sampleRate: Int,
                                   fundamentals: [Double], harmonics: [Double]) -> [Double] {
        var leak = [Double](repeating: 0, count: 16)
        var window = [Double](repeating: 0, count: windowSize)
        for column in 0..<4 {
            for phaseStep in 0..<8 {
                let phase = Double(phaseStep) * Double.pi / 4
                let step = 2 * Double.pi * DTMFDigit.columnFrequencies[column] / Double(sampleRate)
                for n in 0..<windowSize { window[n] = sin(step * Double(n) + phase) }
                window.withUnsafeBufferPointer { samples in
                    let own = goertzel(fundamentals[4 + column], samples, start: 0)
                    for row in 0..<4 {
                        let ratio = (goertzel(harmonics[row], samples, start: 0) / own).squareRoot()
                        leak[row * 4 + column] = max(leak[row * 4 + column], ratio)
                    }
                }
            }
        }
        return leak
    }

    /// Feeds mono samples; calls `onDetection` for each key recognised in them (at most once per key).
    public mutating func process(_ samples: UnsafeBufferPointer<Int16>, onDetection: (DTMFDetection) -> Void) {
        for sample in samples {
            history[writeIndex] = Double(sample)
            writeIndex = writeIndex + 1 == windowSize ? 0 : writeIndex + 1
            filled = min(filled + 1, windowSize)
            position += 1
            sinceAnalysis += 1
            guard sinceAnalysis >= hopSize else { continue }
            sinceAnalysis = 0
            guard filled == windowSize else { continue }
            let hit = analyzeWindow()
            if let detection = tracker.record(hit, windowStart: position - Int64(windowSize), at: position,
                                              hitsToReport: windowHitsToReport, missesToEnd: windowMissesToEnd,
                                              startOffset: Int64(Double(windowSize) * (1 - configuration.minimumEnergyRatio))) {
                onDetection(detection)
            }
        }
    }

    /// Feeds mono samples and returns the keys recognised in them (allocates; for tests and tools).
    public mutating func process(_ samples: [Int16]) -> [DTMFDetection] {
        var found: [DTMFDetection] = []
        samples.withUnsafeBufferPointer { buffer in process(buffer) { found.append($0) } }
        return found
    }

    /// Forgets all audio and any key in progress; sample positions restart at 0.
    public mutating func reset() {
        for i in history.indices { history[i] = 0 }
        writeIndex = 0
        filled = 0
        sinceAnalysis = 0
        position = 0
        tracker = HitTracker()
    }

    /// The key the current window shows, or nil.
    private func analyzeWindow() -> DTMFDigit? {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 8) { powers in
            history.withUnsafeBufferPointer { window in analyze(window, powers: powers) }
        }
    }

    private func analyze(_ window: UnsafeBufferPointer<Double>, powers: UnsafeMutableBufferPointer<Double>) -> DTMFDigit? {
        var energy = 0.0
        for x in window { energy += x * x }
        for i in 0..<8 { powers[i] = goertzel(fundamentalCoefficients[i], window) }
        var row = 0, column = 4
        for i in 1..<4 where powers[i] > powers[row] { row = i }
        for i in 5..<8 where powers[i] > powers[column] { column = i }
        let rowPower = powers[row], columnPower = powers[column]

        guard rowPower >= minimumPower, columnPower >= minimumPower,
              columnPower <= rowPower * normalTwist, rowPower <= columnPower * reverseTwist
        else { return nil }
        for i in 0..<8 where i != row && i != column {
            guard (i < 4 ? rowPower : columnPower) >= powers[i] * relativePeak else { return nil }
        }
        // A sine of Goertzel power P carries 2P/N of the window's energy.
        guard 2 * (rowPower + columnPower) >= configuration.minimumEnergyRatio * energy * Double(windowSize)
        else { return nil }
        // Amplitudes add at worst in phase: allow the row harmonic the column's leak (plus 10 %).
        let leak = 1.1 * columnLeakIntoRowHarmonic[row * 4 + column - 4] * columnPower.squareRoot()
        let rowHarmonicLimit = (rowPower * harmonicLimit).squareRoot() + leak
        guard goertzel(harmonicCoefficients[row], window) <= rowHarmonicLimit * rowHarmonicLimit,
              goertzel(harmonicCoefficients[column], window) <= columnPower * harmonicLimit
        else { return nil }
        return DTMFDigit(row: row, column: column - 4)
    }

    /// Goertzel power at the frequency whose coefficient is `c` over the window in time order.
    private func goertzel(_ c: Double, _ window: UnsafeBufferPointer<Double>) -> Double {
        Self.goertzel(c, window, start: writeIndex)
    }

    /// Goertzel power over a circular `window` read from `start`.
    private static func goertzel(_ c: Double, _ window: UnsafeBufferPointer<Double>, start: Int) -> Double {
        let windowSize = window.count
        var s1 = 0.0, s2 = 0.0
        var i = start
        for _ in 0..<windowSize {
            let s = window[i] + c * s1 - s2
            s2 = s1
            s1 = s
            i = i + 1 == windowSize ? 0 : i + 1
        }
        return s1 * s1 + s2 * s2 - c * s1 * s2
    }

    private static func coefficient(_ frequency: Double, _ sampleRate: Int) -> Double {
        2 * cos(2 * Double.pi * frequency / Double(sampleRate))
    }

    private static func linear(dB: Double) -> Double { pow(10, dB / 10) }
}
