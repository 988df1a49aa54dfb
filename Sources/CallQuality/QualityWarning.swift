/// A call-quality warning, named as Twilio's Voice SDKs name them: the raw values are twilio.js's
/// warning names (`call.on('warning', name)`), the cases those of iOS's `Call.QualityWarning`
/// (`TVOCallQualityWarning`, whose `TVOCallDelegate.h` documents the trigger conditions).
public enum QualityWarning: String, CaseIterable, Codable, Sendable, Hashable {
    /// Round-trip time over 400 ms in 3 of the last 5 samples.
    case highRtt = "high-rtt"
    /// Jitter over 30 ms in 3 of the last 5 samples.
    case highJitter = "high-jitter"
    /// Packet loss averaging over 3 % across the last 7 samples; cleared at 1 % or less. (twilio.js
    /// also has a `high-packet-loss`, loss over 1 % in 3 samples, which the mobile SDKs do not raise.)
    case highPacketsLostFraction = "high-packets-lost-fraction"
    /// MOS under 3.5 in 3 of the last 5 samples.
    case lowMos = "low-mos"
    /// The microphone level has not varied over the last 10 samples while unmuted.
    case constantAudioInputLevel = "constant-audio-input-level"
    /// The playout level has not varied over the last 10 samples (twilio.js computes it and reports
    /// it to Twilio Insights only; the mobile SDKs do not have it).
    case constantAudioOutputLevel = "constant-audio-output-level"
}

/// The warning set after a sample that changed it, with the set before, so the SDK can call
/// `call(_:didReceiveQualityWarnings:previousWarnings:)`.
public struct QualityWarningChange: Sendable, Hashable {
    public let current: Set<QualityWarning>
    public let previous: Set<QualityWarning>

    public init(current: Set<QualityWarning>, previous: Set<QualityWarning>) {
        self.current = current
        self.previous = previous
    }

    /// Warnings raised by this sample.
    public var raised: Set<QualityWarning> { current.subtracting(previous) }
    /// Warnings cleared by this sample.
    public var cleared: Set<QualityWarning> { previous.subtracting(current) }
}

/// The thresholds of `QualityWarningMonitor`. Defaults are Twilio's: the trigger conditions that
/// the iOS SDK documents (`TVOCallDelegate.h`, `call:didReceiveQualityWarnings:previousWarnings:`)
/// and, where it is silent (clearing), twilio.js `lib/twilio/statsMonitor.ts` (`DEFAULT_THRESHOLDS`,
/// `SAMPLE_COUNT_METRICS = 5`, `SAMPLE_COUNT_RAISE = 3`, `SAMPLE_COUNT_CLEAR = 0`,
/// `WARNING_TIMEOUT = 5000`). twilio.js's code default for low MOS is 3; the documented 3.5 is used.
public struct QualityWarningThresholds: Sendable, Hashable, Codable {
    /// High RTT above this (ms).
    public var maxRttMilliseconds = 400.0
    /// High jitter above this (ms).
    public var maxJitterMilliseconds = 30.0
    /// Low MOS below this.
    public var minMos = 3.5
    /// Samples judged for RTT, jitter and MOS.
    public var sampleCount = 5
    /// Samples of those that must cross the threshold to raise the warning.
    public var raiseCount = 3
    /// At most this many may still cross for the warning to clear.
    public var clearCount = 0
    /// High packet loss when the average over `lossSampleCount` samples is above this (percent)…
    public var maxAverageLossPercent = 3.0
    /// …and cleared when that average is at or below this.
    public var clearAverageLossPercent = 1.0
    public var lossSampleCount = 7
    /// A level is constant when the standard deviation of all readings over `audioLevelSampleCount`
    /// samples is at most this (327.67 on Twilio's 0…32767 scale: 1 % of full scale)…
    public var constantAudioLevelStandardDeviation = 0.01
    /// …and varies again above this (3 %, as `TVOCallDelegate.h` documents).
    public var variedAudioLevelStandardDeviation = 0.03
    public var audioLevelSampleCount = 10
    /// A warning is not cleared sooner than this after it was raised (µs).
    public var minimumWarningDuration: Int64 = 5_000_000

    public init() {}
}
