import ParleyCore
import ParleyStore
import SFU

/// What the Rooms REST API (`/v1/Rooms…`) asks of live rooms. The room service implements it;
/// VideoREST never imports the service (as VoiceREST's `LiveCallControl` keeps the call engine out).
/// Reads of rooms, participants and published tracks go to the `RoomStore`; anything that
/// changes a live room, or that only the live room knows, comes through here.
public protocol RoomControl: Sendable {
    /// Creates an in-progress room (`POST /v1/Rooms`): stored, its unused-room timer armed,
    /// `room-created` called back.
    /// - Throws: 53113 when an in-progress room of the account has `request.uniqueName`.
    func createRoom(_ request: RoomCreateRequest) async throws(ParleyError) -> RoomRecord
    /// Ends an in-progress room (`Status=completed`): every participant still in is disconnected
    /// (`participant-disconnected` each), then `room-ended`. Nil when no in-progress room has `sid`.
    func completeRoom(sid: String) async -> RoomRecord?
    /// Disconnects a connected participant (`Status=disconnected`); its media stops. Nil when the
    /// room has no connected participant `participantSid`.
    func disconnectParticipant(roomSid: String, participantSid: String) async -> ParticipantRecord?
    /// What a connected participant receives now (`SubscribedTracks`); nil when it is not connected.
    func subscribedTracks(roomSid: String, participantSid: String) async -> [SubscribedTrack]?
    /// A participant's subscribe rules (`SubscribeRules`); nil when the participant is unknown.
    func subscribeRules(roomSid: String, participantSid: String) async -> SubscribeRules?
    /// Replaces them and applies them at once (subscriptions added and removed); nil when unknown.
    func updateSubscribeRules(roomSid: String, participantSid: String, _ rules: SubscribeRules) async -> SubscribeRules?
    /// An in-progress room's recording rules (`RecordingRules`); nil when it is not in progress.
    func recordingRules(roomSid: String) async -> RecordingRules?
    /// Replaces them and applies them at once (recordings started and stopped); nil when the
    /// room is not in progress. Defaults in `RoomControl+Recordings.swift`.
    func updateRecordingRules(roomSid: String, _ rules: RecordingRules) async -> RecordingRules?
}

/// `POST /v1/Rooms`, validated: what the room is made with.
public struct RoomCreateRequest: Sendable, Equatable {
    public var accountSid: String
    /// Nil: the room's SID is its name.
    public var uniqueName: String?
    public var type: RoomType
    public var statusCallback: String?
    public var statusCallbackMethod: String
    public var maxParticipants: Int
    public var maxParticipantDuration: Int
    public var recordParticipantsOnConnect: Bool
    /// Minutes.
    public var emptyRoomTimeout: Int
    public var unusedRoomTimeout: Int
    public var audioOnly: Bool
    public var videoCodecs: [String]
    /// The room's first recording rules (`RecordingRules`); nil: `RecordParticipantsOnConnect` decides.
    public var recordingRules: RecordingRules?

    public init(accountSid: String, uniqueName: String? = nil, type: RoomType = .group, statusCallback: String? = nil,
                statusCallbackMethod: String = "POST", maxParticipants: Int = 50, maxParticipantDuration: Int = 14_400,
                recordParticipantsOnConnect: Bool = false, emptyRoomTimeout: Int = 5, unusedRoomTimeout: Int = 5,
                audioOnly: Bool = false, videoCodecs: [String] = ["VP8"]) {
        self.accountSid = accountSid
        self.uniqueName = uniqueName
        self.type = type
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.maxParticipants = maxParticipants
        self.maxParticipantDuration = maxParticipantDuration
        self.recordParticipantsOnConnect = recordParticipantsOnConnect
        self.emptyRoomTimeout = emptyRoomTimeout
        self.unusedRoomTimeout = unusedRoomTimeout
        self.audioOnly = audioOnly
        self.videoCodecs = videoCodecs
    }
}

/// One track a participant receives (Twilio's SubscribedTrack resource).
public struct SubscribedTrack: Sendable, Equatable {
    /// The published track's `MT…` SID.
    public var trackSid: String
    public var name: String
    public var kind: TrackKind
    public var enabled: Bool
    /// The publisher's participant SID.
    public var publisherSid: String
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(trackSid: String, name: String, kind: TrackKind, enabled: Bool, publisherSid: String,
                createdAt: Int64, updatedAt: Int64) {
        self.trackSid = trackSid
        self.name = name
        self.kind = kind
        self.enabled = enabled
        self.publisherSid = publisherSid
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
