import ParleyCore

/// What a call session reports to its owner (the call engine), delivered in order on a task of
/// its own, never on the media loop thread, so the handler may block briefly or start async work.
public enum PeerSessionEvent: Sendable, Hashable {
    /// The session moved to `state`; `error` is set for `.failed` (53405 ICE or consent, 53407
    /// DTLS). After a terminal state nothing more is reported and the session is gone: it is
    /// no longer a forwarding source or sink.
    case stateChanged(sessionID: String, state: PeerConnectionState, error: ParleyError?)
    /// One RFC 4733 telephone-event key (`0`–`9`, `*`, `#`, `A`–`D`), reported once when it ends
    /// (its first E-bit packet), or when the next key starts or 2 s pass after its last packet if
    /// every end packet was lost.
    case digit(sessionID: String, digit: Character)
    /// ICE saw nothing from the peer for 5 s (`disconnected`): media is probably interrupted. The
    /// session fails when consent is not refreshed before the consent timeout (RFC 7675).
    case connectivityLost(sessionID: String)
    /// Traffic came back after `connectivityLost`.
    case connectivityRestored(sessionID: String)
    /// ICE consent expired (RFC 7675 §5.1); `.stateChanged(.failed)` follows at once.
    case consentLost(sessionID: String)
    /// An ICE restart (`restartSession`) completed: the peer nominated a pair under the new
    /// credentials.
    case iceRestarted(sessionID: String)
    /// Room sessions: the loudest RFC 6464 level (0 dBov loudest … 127 silence) the peer sent
    /// in the published audio section `mid` over the last `PeerSession.audioLevelInterval`, when
    /// the section negotiated `ssrc-audio-level`.
    case audioLevel(sessionID: String, mid: String, level: UInt8)
    /// Room sessions, once per RTCP interval: what the peer's paths to and from us look like.
    case quality(sessionID: String, PeerSessionQuality)
    /// Room sessions: the receive slot `mid` was switched off (its subscriber's budget does not
    /// carry it; nothing is forwarded in it) or back on.
    case trackSwitched(sessionID: String, mid: String, off: Bool)
    /// Room sessions: the peer opened a data channel labelled `label` (RFC 8832 §6), the source
    /// of a data track of that name.
    case dataChannelOpened(sessionID: String, label: String)
    /// Room sessions: a data channel the peer opened is closed (by either side, or with the
    /// association).
    case dataChannelClosed(sessionID: String, label: String)

    /// The session the event is about.
    public var sessionID: String {
        switch self {
        case .stateChanged(let id, _, _), .digit(let id, _), .connectivityLost(let id), .connectivityRestored(let id),
             .consentLost(let id), .iceRestarted(let id), .audioLevel(let id, _, _), .quality(let id, _),
             .trackSwitched(let id, _, _), .dataChannelOpened(let id, _), .dataChannelClosed(let id, _):
            id
        }
    }
}

/// A room peer's paths over the last interval, for its network quality level.
public struct PeerSessionQuality: Sendable, Hashable {
    /// Fraction (0–1) of the peer's packets to us lost since the previous sample (RFC 3550 A.3).
    public var uplinkLoss: Double
    /// The highest fraction lost the peer reported on our streams to it (its last RTCP reports).
    public var downlinkLoss: Double
    /// Round trip to the peer from its reports on our streams (RFC 3550 §6.4.1), when known.
    public var roundTripTime: Duration?
    /// The highest interarrival jitter of the peer's streams to us, in seconds (RFC 3550 A.8).
    public var jitter: Double

    /// Room subscribers: the video budget toward the peer (`SubscriberBudget`, nil while
    /// unlimited) and what its subscriptions would take at their largest layers, bits/s.
    public var downlinkBudget: Int?
    public var downlinkWanted: Int?

    public init(uplinkLoss: Double, downlinkLoss: Double, roundTripTime: Duration?, jitter: Double,
                downlinkBudget: Int? = nil, downlinkWanted: Int? = nil) {
        self.uplinkLoss = uplinkLoss
        self.downlinkLoss = downlinkLoss
        self.roundTripTime = roundTripTime
        self.jitter = jitter
        self.downlinkBudget = downlinkBudget
        self.downlinkWanted = downlinkWanted
    }
}

/// One encoded frame the server sends itself (`MediaTransportServer.play(_:to:)`): an Opus
/// packet the caller encoded, or G.711 bytes, in the session's negotiated codec.
public struct EncodedAudioFrame: Sendable, Hashable {
    public var payload: [UInt8]
    /// Samples the frame covers at the codec's RTP clock rate (960 for 20 ms of Opus, 160 for
    /// 20 ms of PCMU): the RTP timestamp advances by this much after the frame.
    public var samples: Int

    public init(payload: [UInt8], samples: Int) {
        self.payload = payload
        self.samples = samples
    }
}

/// One received RTP packet (SRTP removed) handed to a tap, for recording or decoding on the
/// server: a call session's audio (`setAudioTap`; telephone-event packets are not tapped, they
/// arrive as `PeerSessionEvent.digit`) or a room session's published section (`setTap(section:)`,
/// every packet of it, padding-only ones with an empty payload, so sequence numbers have no holes).
public struct MediaTapPacket: Sendable, Hashable {
    public var payload: [UInt8]
    public var ssrc: UInt32
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var marker: Bool
    public var payloadType: UInt8
    public var codec: MediaCodec
    /// When it arrived, seconds on the media loop's monotonic clock.
    public var arrival: Double

    public init(payload: [UInt8], ssrc: UInt32 = 0, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool = false,
                payloadType: UInt8, codec: MediaCodec, arrival: Double = 0) {
        self.payload = payload
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.marker = marker
        self.payloadType = payloadType
        self.codec = codec
        self.arrival = arrival
    }
}
