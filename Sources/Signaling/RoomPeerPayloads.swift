// Payloads of peer-to-peer rooms (docs/signaling.md §12, "Peer-to-peer rooms"): the server
// relays these between two participants of one `peer-to-peer` or `go` room and carries no media.

extension RoomProtocol {
    /// The most ICE servers in `room.joined`, and URLs in one of them.
    public static let maxICEServers = 8
    /// The longest ICE candidate line (`a=candidate` value, RFC 8839 §5.1), in bytes.
    public static let maxCandidateBytes = 1024
    /// The highest `sdpMLineIndex` a candidate may name.
    public static let maxMLineIndex = 255
}

/// A STUN or TURN server for the participant's peer connections (WebRTC's `RTCIceServer`), with
/// TURN REST credentials (time-limited username, HMAC-SHA1 password) when it is a TURN server.
public struct RoomICEServer: Sendable, Equatable {
    /// `stun:`, `turn:` or `turns:` URLs (RFC 7064, RFC 7065).
    public var urls: [String]
    public var username: String?
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }
}

/// `room.peerOffer` and `room.peerAnswer`: an SDP offer or answer for the peer connection between
/// two participants. From a client, `participantSid` names the participant it is for; relayed by
/// the server, the participant it is from.
public struct RoomPeerDescription: Sendable, Equatable {
    public var participantSid: String
    public var sdp: String
    /// Which of the sender's published tracks each of its sending sections (`mid`) carries.
    public var published: [RoomPublishedTrack]

    public init(participantSid: String, sdp: String, published: [RoomPublishedTrack] = []) {
        self.participantSid = participantSid
        self.sdp = sdp
        self.published = published
    }
}

/// `room.peerCandidate`: one trickled ICE candidate (RFC 8838) for the peer connection between two
/// participants; an empty `candidate` ends the candidates of its generation. `participantSid` as
/// in `RoomPeerDescription`.
public struct RoomPeerCandidate: Sendable, Equatable {
    public var participantSid: String
    /// The candidate attribute's value (`candidate:…`), or empty.
    public var candidate: String
    public var sdpMid: String?
    public var sdpMLineIndex: Int?
    /// The ICE ufrag of the generation it belongs to (RFC 8839 §5.4).
    public var usernameFragment: String?

    public init(participantSid: String, candidate: String, sdpMid: String? = nil, sdpMLineIndex: Int? = nil,
                usernameFragment: String? = nil) {
        self.participantSid = participantSid
        self.candidate = candidate
        self.sdpMid = sdpMid
        self.sdpMLineIndex = sdpMLineIndex
        self.usernameFragment = usernameFragment
    }
}
