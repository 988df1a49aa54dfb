/// Twilio's call-quality warnings, raised and cleared from one `CallQualitySample` a second, with
/// the conditions the iOS SDK documents (`TVOCallDelegate.h`) and the mechanics of twilio.js's
/// `StatsMonitor` (`lib/twilio/statsMonitor.ts`, `_raiseWarningsForStat`):
///
/// - high RTT, high jitter, low MOS: raised when at least `raiseCount` (3) of the last
///   `sampleCount` (5) samples cross the threshold, cleared when at most `clearCount` (0) do;
///   a window holding a sample without the figure decides nothing;
/// - high packet loss: the received stream's loss averaged over the last 7 samples (only once there
///   are 7); raised above 3 %, cleared at or below 1 %;
/// - constant audio input/output level: the standard deviation of every level reading over the last
///   10 samples at most 0.01 (1 % of full scale) raises it, above 0.03 clears it. The input level
///   is not judged while muted: muting clears the warning and restarts its window.
///
/// A raised warning stays at least `minimumWarningDuration` (5 s, twilio.js `WARNING_TIMEOUT`).
/// twilio.js judges RTT, jitter and MOS over its largest configured window (10) rather than the
/// documented 5; Parley follows the documentation ("3 out of last 5 samples"). A sample without an
/// RTT reuses the last one (twilio.js `_createSample`: RTCP gives RTTs less often than once a second).
public struct QualityWarningMonitor: Sendable {
    public let thresholds: QualityWarningThresholds
    /// The warnings in force.
    public private(set) var warnings: Set<QualityWarning> = []

    private var raisedAt = [Int64](repeating: 0, count: QualityWarning.allCases.count)
    private var rtt: SampleRing<Double?>
    private var jitter: SampleRing<Double?>
    private var mos: SampleRing<Double?>
    private var loss: SampleRing<Double?>
    private var inputLevels: SampleRing<AudioLevelSummary>
    private var outputLevels: SampleRing<AudioLevelSummary>

    public init(thresholds: QualityWarningThresholds = QualityWarningThresholds()) {
        self.thresholds = thresholds
        let window = max(thresholds.sampleCount, 1)
        rtt = SampleRing(capacity: window)
        jitter = SampleRing(capacity: window)
        mos = SampleRing(capacity: window)
        loss = SampleRing(capacity: max(thresholds.lossSampleCount, 1))
        inputLevels = SampleRing(capacity: max(thresholds.audioLevelSampleCount, 1))
        outputLevels = SampleRing(capacity: max(thresholds.audioLevelSampleCount, 1))
    }

    /// Takes one sample; returns the new and previous warning sets if this sample changed them.
    public mutating func update(with sample: CallQualitySample) -> QualityWarningChange? {
        let previous = warnings
        let t = thresholds
        let lastRtt: Double? = rtt.last ?? nil
        rtt.append(sample.rttMilliseconds ?? lastRtt)
        jitter.append(sample.remote.jitterMilliseconds)
        mos.append(sample.mos)
        loss.append(sample.remote.lossPercent)
        outputLevels.append(sample.remote.audioLevel)

        judgeCount(.highRtt, rtt, at: sample.time) { $0 > t.maxRttMilliseconds }
        judgeCount(.highJitter, jitter, at: sample.time) { $0 > t.maxJitterMilliseconds }
        judgeCount(.lowMos, mos, at: sample.time) { $0 < t.minMos }
        judgeLoss(at: sample.time)
        judgeLevel(.constantAudioOutputLevel, outputLevels, at: sample.time)
        if sample.isInputMuted {
            inputLevels.removeAll()
            warnings.remove(.constantAudioInputLevel)
        } else {
            inputLevels.append(sample.local.audioLevel)
            judgeLevel(.constantAudioInputLevel, inputLevels, at: sample.time)
        }
        return warnings == previous ? nil : QualityWarningChange(current: warnings, previous: previous)
    }

    /// Forgets every sample and warning (a new call, or the monitor was switched off).
    public mutating func reset() {
        self = QualityWarningMonitor(thresholds: thresholds)
    }

    /// twilio.js `countHigh`/`countLow` against `raiseCount` and `clearCount`.
    private mutating func judgeCount(_ warning: QualityWarning, _ ring: SampleRing<Double?>, at time: Int64,
                                     crosses: (Double) -> Bool) {
        guard let window = WindowSummary(ring, last: thresholds.sampleCount, crosses: crosses) else { return }
        if window.crossing >= thresholds.raiseCount {
            raise(warning, at: time)
        } else if window.crossing <= thresholds.clearCount {
            clear(warning, at: time)
        }
    }

    /// twilio.js `maxAverage` with `clearValue`.
    private mutating func judgeLoss(at time: Int64) {
        guard loss.count >= thresholds.lossSampleCount,
              let window = WindowSummary(loss, last: thresholds.lossSampleCount, crosses: { _ in false }) else { return }
        if window.average > thresholds.maxAverageLossPercent {
            raise(.highPacketsLostFraction, at: time)
        } else if window.average <= thresholds.clearAverageLossPercent {
            clear(.highPacketsLostFraction, at: time)
        }
    }

    /// twilio.js `minStandardDeviation` over the flattened level readings, with iOS's hysteresis.
    private mutating func judgeLevel(_ warning: QualityWarning, _ ring: SampleRing<AudioLevelSummary>, at time: Int64) {
        guard ring.count >= thresholds.audioLevelSampleCount else { return }
        var all = AudioLevelSummary()
        ring.forEachRecent(thresholds.audioLevelSampleCount) { all.merge($0) }
        guard let deviation = all.standardDeviation else { return }
        if deviation <= thresholds.constantAudioLevelStandardDeviation {
            raise(warning, at: time)
        } else if deviation > thresholds.variedAudioLevelStandardDeviation {
            clear(warning, at: time)
        }
    }

    private mutating func raise(_ warning: QualityWarning, at time: Int64) {
        guard !warnings.contains(warning) else { return }
        warnings.insert(warning)
        raisedAt[Self.index(warning)] = time
    }

    private mutating func clear(_ warning: QualityWarning, at time: Int64) {
        guard warnings.contains(warning),
              time - raisedAt[Self.index(warning)] >= thresholds.minimumWarningDuration else { return }
        warnings.remove(warning)
    }

    private static func index(_ warning: QualityWarning) -> Int {
        QualityWarning.allCases.firstIndex(of: warning) ?? 0
    }
}
