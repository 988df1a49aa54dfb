/// The thresholds of `MediaMetricsMonitor`; defaults are the ones the Plivo SDK documentation gives.
public struct MediaMetricsThresholds: Sendable, Hashable, Codable {
    public var maxJitterMilliseconds = 30.0
    public var maxRttMilliseconds = 400.0
    public var minMos = 3.5
    /// High packet loss above this for Opus (and any codec but G.711), percent.
    public var maxLossPercentOpus = 10.0
    /// High packet loss above this for PCMU and PCMA, percent.
    public var maxLossPercentG711 = 2.0
    /// Samples judged, and how many of them must cross to raise (or be back to normal to clear).
    public var sampleCount = 3
    public var raiseCount = 2
    public var clearCount = 2
    /// Audio quieter than this (dBov) is silence. Digital silence reads −127 dB (RFC 6464), a quiet
    /// room through a microphone about −60 dB.
    public var silenceFloorDecibels = -80.0
    /// `no_audio_received` after this many silent samples in a row; cleared by one that is not.
    public var silentSampleCount = 3

    public init() {}

    /// The packet-loss threshold for `codec`.
    public func maxLossPercent(for codec: CodecName) -> Double {
        codec.isG711 ? maxLossPercentG711 : maxLossPercentOpus
    }
}

/// Plivo's media-metrics events from one `CallQualitySample` a second, as the Plivo SDKs describe
/// them: `high_jitter` and `high_packetloss` per stream, `high_rtt` and `low_mos` for the call, each
/// raised when 2 of the last 3 samples cross the threshold and cleared when 2 of the last 3 are back
/// to normal; `no_audio_received` per stream when its level stays under the silence floor (or, for
/// the received stream, no packet arrives) for 3 samples. The local stream's loss and jitter are
/// the far end's RTCP figures; the microphone is not judged while muted.
public struct MediaMetricsMonitor: Sendable {
    public let thresholds: MediaMetricsThresholds
    private var trackers: [Tracker]

    /// One event type on one stream.
    private struct Tracker: Sendable {
        let type: MediaMetricsEvent.EventType
        let stream: MediaMetricsEvent.Stream
        var values: SampleRing<Double?>
        var active = false
        var silentRun = 0
    }

    public init(thresholds: MediaMetricsThresholds = MediaMetricsThresholds()) {
        self.thresholds = thresholds
        let pairs: [(MediaMetricsEvent.EventType, MediaMetricsEvent.Stream)] = [
            (.highJitter, .local), (.highJitter, .remote), (.highRtt, .none), (.highPacketLoss, .local),
            (.highPacketLoss, .remote), (.lowMos, .none), (.noAudioReceived, .local), (.noAudioReceived, .remote),
        ]
        trackers = pairs.map { Tracker(type: $0.0, stream: $0.1, values: SampleRing(capacity: max(thresholds.sampleCount, 1))) }
    }

    /// Whether `type` is raised on `stream`.
    public func isActive(_ type: MediaMetricsEvent.EventType, stream: MediaMetricsEvent.Stream) -> Bool {
        trackers.contains { $0.type == type && $0.stream == stream && $0.active }
    }

    /// Takes one sample; returns the events it raised or cleared (empty when nothing changed).
    public mutating func update(with sample: CallQualitySample) -> [MediaMetricsEvent] {
        var events: [MediaMetricsEvent] = []
        for i in trackers.indices {
            if let event = judge(&trackers[i], sample) { events.append(event) }
        }
        return events
    }

    private func judge(_ tracker: inout Tracker, _ sample: CallQualitySample) -> MediaMetricsEvent? {
        let t = thresholds
        let stream = tracker.stream == .local ? sample.local : sample.remote
        switch tracker.type {
        case .highJitter:
            return judgeWindow(&tracker, stream.jitterMilliseconds) { $0 > t.maxJitterMilliseconds }
        case .highRtt:
            return judgeWindow(&tracker, sample.rttMilliseconds) { $0 > t.maxRttMilliseconds }
        case .highPacketLoss:
            let limit = t.maxLossPercent(for: sample.codec)
            return judgeWindow(&tracker, stream.lossPercent) { $0 > limit }
        case .lowMos:
            return judgeWindow(&tracker, sample.mos, reportCurrent: true) { $0 < t.minMos }
        case .noAudioReceived:
            return judgeSilence(&tracker, stream, muted: tracker.stream == .local && sample.isInputMuted)
        }
    }

    /// 2 of the last 3 cross → raise; 2 of the last 3 do not → clear. The value is the window's
    /// average (or the current value for MOS). A window with a missing figure decides nothing.
    private func judgeWindow(_ tracker: inout Tracker, _ value: Double?, reportCurrent: Bool = false,
                             crosses: (Double) -> Bool) -> MediaMetricsEvent? {
        tracker.values.append(value)
        guard let window = WindowSummary(tracker.values, last: thresholds.sampleCount, crosses: crosses) else { return nil }
        let reported = reportCurrent ? (value ?? window.average) : window.average
        if !tracker.active, window.crossing >= thresholds.raiseCount {
            tracker.active = true
            return MediaMetricsEvent(type: tracker.type, active: true, value: reported, stream: tracker.stream)
        }
        if tracker.active, window.samples - window.crossing >= thresholds.clearCount {
            tracker.active = false
            return MediaMetricsEvent(type: tracker.type, active: false, value: reported, stream: tracker.stream)
        }
        return nil
    }

    private func judgeSilence(_ tracker: inout Tracker, _ stream: StreamSample, muted: Bool) -> MediaMetricsEvent? {
        let decibels: Double
        if let level = stream.audioLevel.meanDecibels {
            decibels = level
        } else if tracker.stream == .remote && stream.packets == 0 {
            decibels = -127  // nothing arrived at all
        } else {
            return nil  // no reading: nothing to judge
        }
        if muted {
            tracker.silentRun = 0
            guard tracker.active else { return nil }
            tracker.active = false
            return MediaMetricsEvent(type: .noAudioReceived, active: false, value: decibels, stream: tracker.stream)
        }
        let silent = decibels < thresholds.silenceFloorDecibels
        tracker.silentRun = silent ? tracker.silentRun + 1 : 0
        if !tracker.active, tracker.silentRun >= thresholds.silentSampleCount {
            tracker.active = true
            return MediaMetricsEvent(type: .noAudioReceived, active: true, value: decibels, stream: tracker.stream)
        }
        if tracker.active, !silent {
            tracker.active = false
            return MediaMetricsEvent(type: .noAudioReceived, active: false, value: decibels, stream: tracker.stream)
        }
        return nil
    }
}
