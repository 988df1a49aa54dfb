// Payloads of the room messages a server sends (docs/signaling.md, "Rooms").

/// `room.joined`: the join succeeded; the server's answer and the room's state.
public struct RoomJoined: Sendable, Equatable {
    public var roomV: Int
    public var room: RoomInfo
    /// The local participant.
    public var participant: RoomParticipantInfo
    /// The other participants.
    public var participants: [RoomParticipantInfo]
    /// The server's SDP answer; nil in a `peer-to-peer` or `go` room (no media through the server).
    public var answer: String?
    public var published: [RoomPublishedTrack]
    public var subscriptions: [RoomSubscription]
    /// STUN and TURN servers for the client's peer connections (empty unless the server has them).
    public var iceServers: [RoomICEServer]

    public init(roomV: Int = RoomProtocol.version, room: RoomInfo, participant: RoomParticipantInfo,
                participants: [RoomParticipantInfo] = [], answer: String?,
                published: [RoomPublishedTrack] = [], subscriptions: [RoomSubscription] = [],
                iceServers: [RoomICEServer] = []) {
        self.roomV = roomV
        self.room = room
        self.participant = participant
        self.participants = participants
        self.answer = answer
        self.published = published
        self.subscriptions = subscriptions
        self.iceServers = iceServers
    }
}

/// `room.answer`: the answer to a `room.offer`.
public struct RoomAnswer: Sendable, Equatable {
    public var answer: String
    public var published: [RoomPublishedTrack]
    public var subscriptions: [RoomSubscription]

    public init(answer: String, published: [RoomPublishedTrack] = [], subscriptions: [RoomSubscription] = []) {
        self.answer = answer
        self.published = published
        self.subscriptions = subscriptions
    }
}

/// `room.renegotiate`: the server needs this many more receive slots; the client adds recvonly
/// transceivers and sends `room.offer`.
public struct RoomRenegotiate: Sendable, Equatable {
    public var audio: Int
    public var video: Int

    public init(audio: Int = 0, video: Int = 0) {
        self.audio = audio
        self.video = video
    }
}

/// `room.participantConnected`.
public struct RoomParticipantConnected: Sendable, Equatable {
    public var participant: RoomParticipantInfo

    public init(participant: RoomParticipantInfo) { self.participant = participant }
}

/// `room.trackPublished`: a remote participant published a track (with its `sid`).
public struct RoomTrackPublished: Sendable, Equatable {
    public var participantSid: String
    public var track: RoomTrackInfo

    public init(participantSid: String, track: RoomTrackInfo) {
        self.participantSid = participantSid
        self.track = track
    }
}

/// `room.trackUnpublished`.
public struct RoomTrackUnpublished: Sendable, Equatable {
    public var participantSid: String
    public var trackSid: String

    public init(participantSid: String, trackSid: String) {
        self.participantSid = participantSid
        self.trackSid = trackSid
    }
}

/// `room.trackChanged`: a remote track was enabled or disabled.
public struct RoomTrackChanged: Sendable, Equatable {
    public var participantSid: String
    public var trackSid: String
    public var enabled: Bool

    public init(participantSid: String, trackSid: String, enabled: Bool) {
        self.participantSid = participantSid
        self.trackSid = trackSid
        self.enabled = enabled
    }
}

/// `room.subscribed`: a remote track now flows in receive slot `mid`.
public struct RoomSubscribed: Sendable, Equatable {
    public var trackSid: String
    public var mid: String
    public var participantSid: String

    public init(trackSid: String, mid: String, participantSid: String) {
        self.trackSid = trackSid
        self.mid = mid
        self.participantSid = participantSid
    }
}

/// `room.subscriptionFailed` (a Video error code, 53xxx).
public struct RoomSubscriptionFailed: Sendable, Equatable {
    public var trackSid: String
    public var code: Int
    public var message: String

    public init(trackSid: String, code: Int, message: String) {
        self.trackSid = trackSid
        self.code = code
        self.message = message
    }
}

/// `room.dominantSpeaker`: the loudest participant, nil when nobody speaks.
public struct RoomDominantSpeaker: Sendable, Equatable {
    public var participantSid: String?

    public init(participantSid: String?) { self.participantSid = participantSid }
}

/// One participant's network quality level, 0 (none) to 5 (excellent).
public struct RoomNetworkQualityLevel: Sendable, Equatable {
    public var participantSid: String
    public var level: Int

    public init(participantSid: String, level: Int) {
        self.participantSid = participantSid
        self.level = level
    }
}

/// `room.networkQuality`.
public struct RoomNetworkQuality: Sendable, Equatable {
    public var levels: [RoomNetworkQualityLevel]

    public init(levels: [RoomNetworkQualityLevel]) { self.levels = levels }
}

/// `room.recording`: recording started or stopped.
public struct RoomRecording: Sendable, Equatable {
    public var isRecording: Bool

    public init(isRecording: Bool) { self.isRecording = isRecording }
}

/// `room.disconnected`: the server removed the participant (room ended, REST, duplicate identity, …).
public struct RoomDisconnected: Sendable, Equatable {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }
}
