// Payloads of the room message family (docs/signaling.md, "Rooms").

/// Constants and limits of the room family.
public enum RoomProtocol {
    /// The room family version (`roomV`); other versions are refused with 31426.
    public static let version = 1
    /// The most tracks in one message (a join, an offer, a participant).
    public static let maxTracks = 64
    /// The most participants listed in `room.joined`.
    public static let maxParticipants = 50
    /// The most levels in one `room.networkQuality`.
    public static let maxLevels = 64
    /// The most receive slots one `room.renegotiate` asks for, per kind.
    public static let maxSlots = 64
}

/// A track's media kind.
public enum RoomTrackKind: String, Sendable, Equatable, CaseIterable {
    case audio, video, data
}

/// A published track's priority (`standard` when absent on the wire).
public enum RoomTrackPriority: String, Sendable, Equatable, CaseIterable {
    case low, standard, high
}

/// A track: what a client publishes (no `sid` yet) or what the server announces.
public struct RoomTrackInfo: Sendable, Equatable {
    /// The server's track SID (`MT…`), once published.
    public var sid: String?
    /// The SDP media section (`a=mid`) that carries it.
    public var mid: String?
    public var name: String
    public var kind: RoomTrackKind
    public var priority: RoomTrackPriority
    public var enabled: Bool

    public init(sid: String? = nil, mid: String? = nil, name: String, kind: RoomTrackKind,
                priority: RoomTrackPriority = .standard, enabled: Bool = true) {
        self.sid = sid
        self.mid = mid
        self.name = name
        self.kind = kind
        self.priority = priority
        self.enabled = enabled
    }
}

/// A participant's connection state.
public enum RoomParticipantState: String, Sendable, Equatable, CaseIterable {
    case connected, reconnecting, disconnected
}

/// A participant of a room and its published tracks.
public struct RoomParticipantInfo: Sendable, Equatable {
    /// The participant SID (`PA…`).
    public var sid: String
    public var identity: String
    public var state: RoomParticipantState
    public var tracks: [RoomTrackInfo]

    public init(sid: String, identity: String, state: RoomParticipantState = .connected, tracks: [RoomTrackInfo] = []) {
        self.sid = sid
        self.identity = identity
        self.state = state
        self.tracks = tracks
    }
}

/// A room's type (Twilio Video's room types).
public enum RoomType: String, Sendable, Equatable, CaseIterable {
    case go
    case peerToPeer = "peer-to-peer"
    case group
    case groupSmall = "group-small"
}

/// A room as `room.joined` describes it.
public struct RoomInfo: Sendable, Equatable {
    /// The room SID (`RM…`).
    public var sid: String
    public var name: String
    public var type: RoomType
    public var isRecording: Bool

    public init(sid: String, name: String, type: RoomType = .group, isRecording: Bool = false) {
        self.sid = sid
        self.name = name
        self.type = type
        self.isRecording = isRecording
    }
}

/// Which local track a media section of the answer carries.
public struct RoomPublishedTrack: Sendable, Equatable {
    public var mid: String
    public var trackSid: String

    public init(mid: String, trackSid: String) {
        self.mid = mid
        self.trackSid = trackSid
    }
}

/// Which remote track a receive slot (media section) carries.
public struct RoomSubscription: Sendable, Equatable {
    public var mid: String
    public var trackSid: String
    public var participantSid: String

    public init(mid: String, trackSid: String, participantSid: String) {
        self.mid = mid
        self.trackSid = trackSid
        self.participantSid = participantSid
    }
}

/// `room.join`: joins (or rejoins) a room with an SDP offer.
public struct RoomJoin: Sendable, Equatable {
    /// The room family version the client speaks.
    public var roomV: Int
    /// The room's name or SID; nil joins the token's video grant room.
    public var room: String?
    /// The SDP offer for the server's media session; a `peer-to-peer` or `go` room has none and
    /// ignores it (docs/signaling.md §12, "Peer-to-peer rooms").
    public var offer: String?
    public var tracks: [RoomTrackInfo]
    /// Subscribe to every track automatically (true when absent).
    public var automaticSubscription: Bool
    public var dominantSpeaker: Bool?
    public var networkQuality: Bool?
    /// The participant to resume after a dropped connection.
    public var reconnectParticipantSid: String?
    /// How its downlink is shared among the video it receives (the server's defaults when nil).
    public var bandwidthProfile: RoomBandwidthProfile?

    public init(roomV: Int = RoomProtocol.version, room: String? = nil, offer: String?, tracks: [RoomTrackInfo] = [],
                automaticSubscription: Bool = true, dominantSpeaker: Bool? = nil, networkQuality: Bool? = nil,
                reconnectParticipantSid: String? = nil, bandwidthProfile: RoomBandwidthProfile? = nil) {
        self.bandwidthProfile = bandwidthProfile
        self.roomV = roomV
        self.room = room
        self.offer = offer
        self.tracks = tracks
        self.automaticSubscription = automaticSubscription
        self.dominantSpeaker = dominantSpeaker
        self.networkQuality = networkQuality
        self.reconnectParticipantSid = reconnectParticipantSid
    }
}

/// `room.offer`: a renegotiation offer (new tracks, new receive slots, ICE restart).
public struct RoomOffer: Sendable, Equatable {
    public var offer: String
    public var tracks: [RoomTrackInfo]

    public init(offer: String, tracks: [RoomTrackInfo] = []) {
        self.offer = offer
        self.tracks = tracks
    }
}

/// `room.trackEnabled`: the client enables or disables one of its tracks.
public struct RoomTrackEnabled: Sendable, Equatable {
    public var trackSid: String
    public var enabled: Bool

    public init(trackSid: String, enabled: Bool) {
        self.trackSid = trackSid
        self.enabled = enabled
    }
}

/// A message that names only a track: subscribe, unsubscribe, unsubscribed, switched off / on.
public struct RoomTrackReference: Sendable, Equatable {
    public var trackSid: String

    public init(trackSid: String) { self.trackSid = trackSid }
}

/// A message that names only a participant: disconnected, reconnecting, reconnected.
public struct RoomParticipantReference: Sendable, Equatable {
    public var participantSid: String

    public init(participantSid: String) { self.participantSid = participantSid }
}
