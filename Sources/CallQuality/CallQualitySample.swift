/// One sampling interval of a call (the SDKs take one a second): what `QualityWarningMonitor` and
/// `MediaMetricsMonitor` consume.
public struct CallQualitySample: Sendable, Hashable, Codable {
    /// When the interval ended, in microseconds of a monotonic clock.
    public var time: Int64
    /// Round-trip time from RTCP (RFC 3550 §6.4.1, LSR/DLSR) in milliseconds, nil while unknown.
    public var rttMilliseconds: Double?
    /// What this side sends.
    public var local: StreamSample
    /// What this side receives.
    public var remote: StreamSample
    /// The codec in use.
    public var codec: CodecName
    /// Whether the microphone is muted (the input level is then not judged).
    public var isInputMuted: Bool
    /// MOS from the RTT and the received stream's jitter and loss (`MOS.calculate`), as twilio.js
    /// scores each sample; nil while the RTT or jitter is unknown. Settable to use another score.
    public var mos: Double?

    public init(time: Int64, rttMilliseconds: Double?, local: StreamSample = StreamSample(),
                remote: StreamSample = StreamSample(), codec: CodecName = .opus, isInputMuted: Bool = false) {
        self.time = time
        self.rttMilliseconds = rttMilliseconds
        self.local = local
        self.remote = remote
        self.codec = codec
        self.isInputMuted = isInputMuted
        if let rttMilliseconds, let jitter = remote.jitterMilliseconds {
            mos = MOS.calculate(rttMilliseconds: rttMilliseconds, jitterMilliseconds: jitter, lossPercent: remote.lossPercent)
        } else {
            mos = nil
        }
    }
}
