import ParleyCore
import ParleyStore
import SFU
import ServerMedia

/// What the room service asks of the media plane: one WebRTC session per participant on the
/// server's media socket, and the forwarding between them (the SFU's data path). The client
/// always offers and the server answers (ICE-lite), also to renegotiate, so one code path serves
/// the room page, the SDK, WHIP and WHEP. `WebRTCRoomMedia` implements it over WebRTC's
/// `MediaTransportServer`; tests use an in-memory twin.
public protocol RoomMediaPlane: Sendable {
    /// Opens a participant's session from its SDP offer: the offer's sending sections are its
    /// published tracks, its receiving sections the slots subscriptions are routed into.
    /// - Parameter events: the session's events, in order, off the media loop.
    /// - Throws: 53403 (unusable offer), 53404 (no supported codec), 53401 (too many sessions).
    func open(offer: String, events: @escaping @Sendable (RoomMediaEvent) -> Void)
        async throws(ParleyError) -> RoomMediaDescription
    /// `open` for a room that allows only `videoCodecs` (rtpmap names, its `VideoCodecs`): the
    /// answer takes no other video codec. Defaults in `RoomMediaPlane+Taps` (`open` as is).
    func open(offer: String, videoCodecs: [String], events: @escaping @Sendable (RoomMediaEvent) -> Void)
        async throws(ParleyError) -> RoomMediaDescription
    /// `renegotiate` for a room that allows only `videoCodecs`.
    func renegotiate(session: String, offer: String, videoCodecs: [String]) async throws(ParleyError) -> RoomMediaDescription
    /// Applies a re-offer of a live session (new published tracks, new receive slots, an ICE
    /// restart); routes and SSRCs of the sections that stay are kept.
    /// - Throws: 53403 (unusable offer, unknown session), 53404.
    func renegotiate(session: String, offer: String) async throws(ParleyError) -> RoomMediaDescription
    /// From now on the publisher's track `source` is sent in the subscriber's receive slot `slot`
    /// (SSRC, sequence numbers and timestamps rewritten, continuous across changes; a keyframe is
    /// asked of a video publisher); nil empties the slot. `priority` ranks a video slot in its
    /// subscriber's allocation; routing the same source again only changes it. False when a
    /// session or section is unknown or the kinds differ.
    func route(_ source: RoomTrackAddress?, to slot: RoomTrackAddress, priority: TrackPriority) async -> Bool
    /// How the session's downlink is shared among the video it receives (Twilio's bandwidth profile).
    func setBandwidthProfile(_ profile: BandwidthProfile, session: String) async
    /// From now on every message the publisher sends on its data channel `source` (a data track:
    /// the channel's label is the track's name) is sent on a channel the media plane opens toward
    /// the subscriber, labelled `sink.label`, with the source channel's reliability; nil closes
    /// that channel. False when a session is unknown, the subscriber has no data channel section,
    /// or the source channel is not open.
    func routeData(_ source: RoomDataChannelAddress?, to sink: RoomDataChannelAddress) async -> Bool
    /// Closes a session (DTLS close_notify); every route from or to it ends.
    func close(session: String) async
    /// Hands every RTP packet the participant sends in `section` to `tap`, in order, off the
    /// media loop (recordings); nil removes it. Returns the section's codec by its rtpmap name
    /// (`opus`, `VP8`, …), nil when no live session sends in it. Defaults in `RoomMediaPlane+Taps`.
    func tap(_ section: RoomTrackAddress, _ tap: (@Sendable (TappedRTPPacket) -> Void)?) async -> String?
    /// Asks the publisher of `section` for a key frame (of the layer sent with `ssrc`).
    func requestKeyframe(_ section: RoomTrackAddress, ssrc: UInt32?) async
    /// Sends one audio frame the server encoded (the room's mix, in the slot's codec) in the
    /// receive slot `slot`, which no route feeds; returns at once, paced by the caller (20 ms).
    /// Defaults in `RoomMediaPlane+Taps` (nothing is sent).
    func play(_ payload: [UInt8], samples: Int, to slot: RoomTrackAddress)
}

/// One m-section of one session, by its `a=mid`.
public struct RoomTrackAddress: Sendable, Hashable {
    public var session: String
    public var mid: String

    public init(session: String, mid: String) {
        self.session = session
        self.mid = mid
    }
}

/// One data channel of one session, by its label.
public struct RoomDataChannelAddress: Sendable, Hashable {
    public var session: String
    public var label: String

    public init(session: String, label: String) {
        self.session = session
        self.label = label
    }
}

extension RoomMediaPlane {
    /// A media plane without data channels routes none.
    public func routeData(_ source: RoomDataChannelAddress?, to sink: RoomDataChannelAddress) async -> Bool { false }
}

/// A session's negotiated sections after an offer.
public struct RoomMediaDescription: Sendable, Equatable {
    public var session: String
    public var answer: String
    /// Sections in which the participant sends (its published tracks), in offer order.
    public var sending: [Section]
    /// Sections in which it receives (slots for subscriptions), in offer order.
    public var receiving: [Section]
    /// The mid of its data channel section (RFC 8841), if the offer had one: it publishes data
    /// tracks as data channels and receives them on channels the media plane opens.
    public var application: String?

    public struct Section: Sendable, Equatable {
        public var mid: String
        public var kind: TrackKind
        /// The negotiated codec's rtpmap name (`opus`, `PCMU`, `VP8`, …), when the plane says.
        public var codec: String?

        public init(mid: String, kind: TrackKind, codec: String? = nil) {
            self.mid = mid
            self.kind = kind
            self.codec = codec
        }
    }

    public init(session: String, answer: String, sending: [Section], receiving: [Section], application: String? = nil) {
        self.session = session
        self.answer = answer
        self.sending = sending
        self.receiving = receiving
        self.application = application
    }
}

/// What a participant's media session reports.
public enum RoomMediaEvent: Sendable, Equatable {
    /// ICE and DTLS are up: media flows.
    case connected(session: String)
    /// The peer's path is gone (consent lost) and may come back with an ICE restart.
    case disconnected(session: String)
    case reconnected(session: String)
    /// Ended by the peer or failed; the last event of the session.
    case closed(session: String, error: ParleyError?)
    /// The RFC 6464 level (0 dBov loudest … 127 silence) of a published audio track, at most
    /// every 50 ms per track.
    case audioLevel(session: String, mid: String, level: UInt8)
    /// Once a second: what the participant's receive and send paths look like, for its network
    /// quality level.
    case quality(session: String, RoomMediaQuality)
    /// The receive slot `mid` was switched off (its subscriber's downlink does not carry it) or
    /// back on.
    case trackSwitched(session: String, mid: String, off: Bool)
    /// The participant opened a data channel labelled `label` (the source of its data track of
    /// that name).
    case dataChannelOpened(session: String, label: String)
    /// That channel closed.
    case dataChannelClosed(session: String, label: String)
}

public struct RoomMediaQuality: Sendable, Equatable {
    /// Fraction lost (0–1) of what the participant sent us, and of what we sent it.
    public var uplinkLoss: Double
    public var downlinkLoss: Double
    public var roundTripTime: Duration?
    /// Interarrival jitter of what it sent, seconds.
    public var jitter: Double
    /// Bandwidth estimate toward the participant, bits per second, when known, and what the video
    /// it subscribes to would take (its largest layers).
    public var downlinkBitrateEstimate: Int?
    public var downlinkBitrateWanted: Int?

    public init(uplinkLoss: Double, downlinkLoss: Double, roundTripTime: Duration?, jitter: Double,
                downlinkBitrateEstimate: Int?, downlinkBitrateWanted: Int? = nil) {
        self.downlinkBitrateWanted = downlinkBitrateWanted
        self.uplinkLoss = uplinkLoss
        self.downlinkLoss = downlinkLoss
        self.roundTripTime = roundTripTime
        self.jitter = jitter
        self.downlinkBitrateEstimate = downlinkBitrateEstimate
    }
}
