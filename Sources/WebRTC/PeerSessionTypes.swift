import ICE
import ParleyCore

/// The W3C `RTCPeerConnectionState` subset a server-side session goes through.
public enum PeerConnectionState: String, Sendable, Hashable, CaseIterable {
    /// Created from an offer; no connectivity check yet.
    case new
    /// Checks or the DTLS handshake are under way.
    case checking
    /// ICE selected a pair and DTLS-SRTP is keyed: media flows.
    case connected
    /// ICE (53405) or DTLS (53407) failed, or consent expired. Terminal.
    case failed
    /// Ended by DELETE, by the peer's close_notify, or by the maximum duration. Terminal.
    case closed

    public var isTerminal: Bool { self == .failed || self == .closed }
}

/// What a session does with the media it receives.
public enum PeerSessionKind: String, Sendable, Hashable, CaseIterable {
    /// Sends it back on its own stream (`createEchoSession`).
    case echo
    /// Forwards it to the sessions it is the source of (`createCallSession`, `forward(from:to:)`).
    case call
    /// A room participant's: each section it sends in goes to the receive slots routed to it,
    /// each receive slot carries one routed section (`createRoomSession`, `route(_:to:)`).
    case room
}

/// A copy of one session's state and counters, safe to hand to other threads.
public struct PeerSessionSnapshot: Sendable {
    public var id: String
    public var kind: PeerSessionKind
    public var state: PeerConnectionState
    public var failure: ParleyError?
    public var codec: AudioCodec
    public var payloadType: UInt8
    /// The negotiated RFC 4733 telephone-event payload type (call sessions whose offer had one).
    public var telephoneEventPayloadType: UInt8?
    public var localSSRC: UInt32
    public var remoteSSRC: UInt32?
    /// The accepted video codec and the SSRC we send video from (echo sessions whose offer had video).
    public var videoCodec: VideoCodec?
    public var localVideoSSRC: UInt32?
    /// The peer address media goes to (the nominated pair).
    public var selectedAddress: ICETransportAddress?
    /// Time from the offer to ICE `connected`, to DTLS `connected`, and to the session's `connected`.
    public var iceConnectedAfter: Duration?
    public var dtlsConnectedAfter: Duration?
    public var connectedAfter: Duration?
    public var age: Duration
    public var counters: PeerSessionCounters
    /// Interarrival jitter of the received stream, in RTP timestamp units (RFC 3550 A.8).
    public var jitter: UInt32
    /// Packets lost in the received stream since the first one (RFC 3550 A.3).
    public var cumulativeLost: Int64
    /// The session whose media this one receives (`forward(from:to:)`), and those it feeds.
    public var forwardingSource: String?
    public var forwardingSinks: [String]
    /// An audio tap is set.
    public var tapped: Bool
    /// Packets sent on each of our streams, by SSRC (a room session's slots; a call's audio).
    public var packetsSentBySSRC: [UInt32: UInt64] = [:]
}

/// Per-session packet counters.
public struct PeerSessionCounters: Sendable, Hashable {
    public var stunReceived = 0
    public var dtlsReceived = 0
    public var rtpReceived = 0
    public var rtpEchoed = 0
    public var rtcpReceived = 0
    public var senderReportsReceived = 0
    public var receiverReportsReceived = 0
    public var rtcpSent = 0
    /// SRTP/SRTCP packets that failed to unprotect (replay, authentication) or protect.
    public var srtpErrors = 0
    /// RTP/RTCP that arrived before SRTP was keyed, or did not parse, or (call sessions) RTP with a
    /// payload type that was not negotiated.
    public var mediaDropped = 0
    /// RTP packets from the forwarding source sent on this session's stream.
    public var rtpForwarded = 0
    /// Forwarded packets this session could not send: not connected, or a telephone event while
    /// this session negotiated none.
    public var forwardDropped = 0
    /// Frames sent by `play(_:to:)`, and those dropped (a forwarding source is set, not
    /// connected, or too large).
    public var framesPlayed = 0
    public var framesDropped = 0
    /// RFC 4733 keys received (each reported once as `PeerSessionEvent.digit`).
    public var digits = 0
    /// Key frame requests (PLI, FIR) on our video track passed on to the peer as PLI (echo sessions).
    public var keyframeRequestsRelayed = 0
    /// RED (RFC 2198) packets received, and redundant blocks of them that stood in for lost packets
    /// (sent on to sinks without RED and to the tap as packets of their own).
    public var redReceived = 0
    public var redBlocksRecovered = 0
    /// Packets sent wrapped in RED by this session's track (frames it repeats for a RED leg).
    public var redWrapped = 0
    /// Generic NACKs (RFC 4585 §6.2.1) sent to the peer for its audio, and packets of ours sent
    /// again because the peer asked.
    public var nacksSent = 0
    public var retransmissionsSent = 0
    /// Room sessions: packets asked for again that were no longer kept (older than a second, or
    /// their source gone), and those refused past the peer's allowance (300 a second).
    public var retransmissionsMissed = 0
    public var retransmissionsRefused = 0
    /// Transport-wide CC feedback packets sent to the peer (room sessions).
    public var transportFeedbackSent = 0
    /// Room sessions: times one of our video slots moved to another layer of its simulcast source,
    /// and times one was switched off or back on by the allocation.
    public var layerSwitches = 0
    public var slotSwitches = 0
    /// Room sessions: padding packets sent to probe the path before a step up, and probes that
    /// passed (the step followed) and failed (`BandwidthProbe`).
    public var paddingSent = 0
    public var probesPassed = 0
    public var probesFailed = 0
    /// Packets forwarded from each simulcast layer (by its rid's place in the offer, up to 4).
    public var layerPackets = [0, 0, 0, 0]
    /// Room sessions' data channels: messages the peer sent, messages sent to it on the channels
    /// of its subscriptions, messages dropped (sent on a channel that publishes nothing, over the
    /// size limit, or not taken by a subscriber's full association), and subscription channels
    /// closed because the peer did not take a reliable channel's messages.
    public var dataMessagesReceived = 0
    public var dataMessagesForwarded = 0
    public var dataMessagesDropped = 0
    public var dataChannelsDropped = 0
    /// Data messages the peer sent past its track's rate (`--room-data-kbps`), not forwarded.
    public var dataMessagesOverRate = 0
    /// RTP packets the peer published past its section's cap (`PeerSession.publishAllowance`), not forwarded.
    public var publishOverRate = 0
    /// Key frame requests toward the peer not sent: within 200 ms of the last one for the section or layer.
    public var keyframeRequestsThrottled = 0

    public init() {}

    mutating func noteLayerForwarded(_ layer: Int) {
        if layerPackets.indices.contains(layer) { layerPackets[layer] += 1 }
    }
}

/// Counters of the shared media socket (all sessions).
public struct MediaTransportStatistics: Sendable, Hashable {
    /// Sessions currently open.
    public var sessions = 0
    public var sessionsCreated = 0
    public var sessionsFailed = 0
    public var datagramsReceived = 0
    public var datagramsSent = 0
    public var stun = 0
    public var dtls = 0
    public var rtp = 0
    public var rtcp = 0
    /// Not STUN, DTLS, RTP or RTCP by the RFC 7983 first-byte rule (or too short).
    public var unknownDropped = 0
    /// Well-classified but matching no session (unknown ufrag or source address).
    public var unroutedDropped = 0
    /// RTP packets forwarded from one session to another, and frames played by the server.
    public var rtpForwarded = 0
    /// Of `rtpForwarded`: packets from a leg on another transport (`openHandoff`), sent without decoding.
    public var handedOver = 0
    public var framesPlayed = 0
    /// Sums of session counters over every session, open and closed.
    public var sessionTotals = SessionCounterTotals()

    public init() {}
}

/// Per-session counters summed over every session of a media server, open and closed.
public struct SessionCounterTotals: Sendable, Hashable {
    /// RED (RFC 2198) packets received, redundant blocks sent on as the packets they stood for,
    /// and packets the server wrapped in RED.
    public var redReceived = 0
    public var redBlocksRecovered = 0
    public var redWrapped = 0
    /// Packets sent again on a receiver's NACK, simulcast layer switches of room slots, and
    /// room slots switched off or on by their subscriber's allocation.
    public var retransmissionsSent = 0
    public var retransmissionsMissed = 0
    public var retransmissionsRefused = 0
    public var layerSwitches = 0
    public var slotSwitches = 0
    /// Padding packets of up-switch probes, and probes passed and failed.
    public var paddingSent = 0
    public var probesPassed = 0
    public var probesFailed = 0
    /// Packets forwarded from simulcast layers 0, 1, 2 and 3.
    public var layerPackets = [0, 0, 0, 0]
    /// Data channel messages forwarded to subscribers and dropped, and subscription channels closed
    /// for not draining (`PeerSessionCounters`).
    public var dataMessagesForwarded = 0
    public var dataMessagesDropped = 0
    public var dataChannelsDropped = 0
    public var dataMessagesOverRate = 0
    /// Published RTP dropped past its section's cap.
    public var publishOverRate = 0

    public init() {}

    /// Adds one session's counters.
    mutating func add(_ counters: PeerSessionCounters) {
        redReceived += counters.redReceived
        redBlocksRecovered += counters.redBlocksRecovered
        redWrapped += counters.redWrapped
        retransmissionsSent += counters.retransmissionsSent
        retransmissionsMissed += counters.retransmissionsMissed
        retransmissionsRefused += counters.retransmissionsRefused
        layerSwitches += counters.layerSwitches
        slotSwitches += counters.slotSwitches
        paddingSent += counters.paddingSent
        probesPassed += counters.probesPassed
        probesFailed += counters.probesFailed
        for layer in layerPackets.indices { layerPackets[layer] += counters.layerPackets[layer] }
        dataMessagesForwarded += counters.dataMessagesForwarded
        dataMessagesDropped += counters.dataMessagesDropped
        dataChannelsDropped += counters.dataChannelsDropped
        dataMessagesOverRate += counters.dataMessagesOverRate
        publishOverRate += counters.publishOverRate
    }
}

/// What `MediaTransportServer.createEchoSession` and `createCallSession` return: the id (for `Location`) and the SDP answer.
public struct PeerSessionAnswer: Sendable {
    public var id: String
    public var sdp: String
}
