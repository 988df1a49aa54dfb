/// One of Plivo's media-metrics events (the `mediaMetrics` delegate of the Plivo SDKs): a warning
/// raised (`active` true) or cleared (`active` false). Encodes to the seed's JSON shape:
/// `{ group, level, type, active, value, desc, stream }`.
public struct MediaMetricsEvent: Sendable, Hashable, Codable {
    public enum Group: String, Sendable, Hashable, Codable {
        case network, audio
    }

    public enum Level: String, Sendable, Hashable, Codable {
        case warning
    }

    public enum EventType: String, Sendable, Hashable, Codable, CaseIterable {
        case highJitter = "high_jitter"
        case highRtt = "high_rtt"
        case highPacketLoss = "high_packetloss"
        case lowMos = "low_mos"
        case noAudioReceived = "no_audio_received"

        /// The seed's `desc` text.
        public var description: String {
            switch self {
            case .highJitter: "high jitter detected due to network congestion, can result in audio quality problems"
            case .highRtt: "high latency detected, can result in delay in audio"
            case .highPacketLoss: "high packet loss is detected on media stream, can result in choppy audio or dropped call"
            case .lowMos: "low Mean Opinion Score (MOS)"
            case .noAudioReceived: "no audio packets received"
            }
        }

        public var group: Group { self == .noAudioReceived ? .audio : .network }
    }

    /// Which stream the event is about: events of the whole call (RTT, MOS) say "None".
    public enum Stream: String, Sendable, Hashable, Codable {
        case local, remote
        case none = "None"
    }

    public var group: Group
    public var level: Level
    public var type: EventType
    /// True when raised, false when the figure is back to normal.
    public var active: Bool
    /// The figure: the window's average jitter (ms), RTT (ms) or packet loss (%), the current MOS,
    /// or the current audio level in dBov.
    public var value: Double
    public var desc: String
    public var stream: Stream

    public init(type: EventType, active: Bool, value: Double, stream: Stream) {
        group = type.group
        level = .warning
        self.type = type
        self.active = active
        self.value = value
        desc = type.description
        self.stream = stream
    }
}
