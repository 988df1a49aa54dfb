/// Video rooms as the Rooms REST API shows them (Twilio's Video v1 Room, Participant and
/// PublishedTrack resources): `SQLiteAccountStore` persists them (same file, same migrations),
/// `InMemoryAccountStore` is the twin for tests; both pass one suite. A node keeps its live room
/// state in memory; this is the record of it, and what a second node would read. Times are
/// seconds since the epoch.
public protocol RoomStore: Sendable {
    /// Inserts a room (`.conflict` when an in-progress room of the account has its unique name).
    func insertRoom(_ room: RoomRecord) throws(StoreError)
    /// Overwrites the row with `room.sid` (`.notFound` if absent).
    func updateRoom(_ room: RoomRecord) throws(StoreError)
    func room(sid: String) throws(StoreError) -> RoomRecord?
    /// The account's in-progress room with this unique name, if any.
    func inProgressRoom(accountSid: String, uniqueName: String) throws(StoreError) -> RoomRecord?
    /// Rooms matching `query`, newest first, one page.
    func rooms(_ query: RoomQuery) throws(StoreError) -> [RoomRecord]
    /// Every account's in-progress rooms, oldest first: after a restart, rooms no process holds.
    func unfinishedRooms() throws(StoreError) -> [RoomRecord]

    func insertParticipant(_ participant: ParticipantRecord) throws(StoreError)
    func updateParticipant(_ participant: ParticipantRecord) throws(StoreError)
    func participant(sid: String) throws(StoreError) -> ParticipantRecord?
    /// A room's participants in the order they joined; only those with `status` when given.
    func participants(roomSid: String, status: ParticipantStatus?) throws(StoreError) -> [ParticipantRecord]

    /// Inserts or replaces a published track (by SID).
    func upsertPublishedTrack(_ track: PublishedTrackRecord) throws(StoreError)
    /// Removes it (unpublished); false if it was not there.
    func deletePublishedTrack(sid: String) throws(StoreError) -> Bool
    /// A participant's published tracks in the order they were published.
    func publishedTracks(participantSid: String) throws(StoreError) -> [PublishedTrackRecord]

    /// A participant's subscribe rules as REST set them; nil when none were (it receives everything).
    func subscribeRules(participantSid: String) throws(StoreError) -> StoredSubscribeRules?
    /// Inserts or replaces a participant's subscribe rules.
    func setSubscribeRules(_ rules: StoredSubscribeRules) throws(StoreError)
}

/// A participant's subscribe rules (the SubscribeRules resource): Twilio's rules array as JSON
/// text, e.g. `[{"type":"include","all":true},{"type":"exclude","kind":"video"}]`.
public struct StoredSubscribeRules: Sendable, Equatable {
    public let participantSid: String
    public let roomSid: String
    public var rules: String
    public var updatedAt: Int64

    public init(participantSid: String, roomSid: String, rules: String, updatedAt: Int64) {
        self.participantSid = participantSid
        self.roomSid = roomSid
        self.rules = rules
        self.updatedAt = updatedAt
    }
}

/// Twilio's room types.
public enum RoomType: String, Sendable, CaseIterable {
    case go
    case peerToPeer = "peer-to-peer"
    case group
    case groupSmall = "group-small"

    /// Whether media goes through the server (an SFU) rather than between the clients.
    public var isRouted: Bool { self == .group || self == .groupSmall }

    /// The most participants a room of this type holds (Twilio's: go 2, group-small 4,
    /// peer-to-peer 10, group 50).
    public var maxParticipants: Int {
        switch self { case .go: 2; case .groupSmall: 4; case .peerToPeer: 10; case .group: 50 }
    }
}

public enum RoomStatus: String, Sendable, CaseIterable {
    case inProgress = "in-progress"
    case completed, failed
}

public enum ParticipantStatus: String, Sendable, CaseIterable {
    case connected, disconnected
}

public enum TrackKind: String, Sendable, CaseIterable {
    case audio, video, data
}

/// One room (`RM…`).
public struct RoomRecord: Sendable, Equatable {
    public let sid: String
    public let accountSid: String
    /// The name clients join by; unique among the account's in-progress rooms (the SID when not given).
    public var uniqueName: String
    public var type: RoomType
    public var status: RoomStatus
    public var statusCallback: String?
    public var statusCallbackMethod: String
    public var maxParticipants: Int
    /// Seconds a participant may stay (Twilio's default 14,400).
    public var maxParticipantDuration: Int
    public var recordParticipantsOnConnect: Bool
    /// Minutes an emptied room waits before it ends; minutes a room nobody joined waits.
    public var emptyRoomTimeout: Int
    public var unusedRoomTimeout: Int
    public var audioOnly: Bool
    public var videoCodecs: [String]
    public var endTime: Int64?
    public var duration: Int64?
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, uniqueName: String, type: RoomType, status: RoomStatus = .inProgress,
                statusCallback: String? = nil, statusCallbackMethod: String = "POST", maxParticipants: Int = 50,
                maxParticipantDuration: Int = 14_400, recordParticipantsOnConnect: Bool = false, emptyRoomTimeout: Int = 5,
                unusedRoomTimeout: Int = 5, audioOnly: Bool = false, videoCodecs: [String] = ["VP8"],
                endTime: Int64? = nil, duration: Int64? = nil, createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.uniqueName = uniqueName
        self.type = type
        self.status = status
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.maxParticipants = maxParticipants
        self.maxParticipantDuration = maxParticipantDuration
        self.recordParticipantsOnConnect = recordParticipantsOnConnect
        self.emptyRoomTimeout = emptyRoomTimeout
        self.unusedRoomTimeout = unusedRoomTimeout
        self.audioOnly = audioOnly
        self.videoCodecs = videoCodecs
        self.endTime = endTime
        self.duration = duration
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One participant's stay in a room (`PA…`): a reconnect within the window keeps it.
public struct ParticipantRecord: Sendable, Equatable {
    public let sid: String
    public let roomSid: String
    public let accountSid: String
    public let identity: String
    public var status: ParticipantStatus
    public let startTime: Int64
    public var endTime: Int64?
    public var duration: Int64?
    public var updatedAt: Int64

    public init(sid: String, roomSid: String, accountSid: String, identity: String, status: ParticipantStatus = .connected,
                startTime: Int64, endTime: Int64? = nil, duration: Int64? = nil, updatedAt: Int64) {
        self.sid = sid
        self.roomSid = roomSid
        self.accountSid = accountSid
        self.identity = identity
        self.status = status
        self.startTime = startTime
        self.endTime = endTime
        self.duration = duration
        self.updatedAt = updatedAt
    }
}

/// A track a participant publishes (`MT…`).
public struct PublishedTrackRecord: Sendable, Equatable {
    public let sid: String
    public let participantSid: String
    public let roomSid: String
    public var name: String
    public var kind: TrackKind
    public var enabled: Bool
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, participantSid: String, roomSid: String, name: String, kind: TrackKind, enabled: Bool = true,
                createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.participantSid = participantSid
        self.roomSid = roomSid
        self.name = name
        self.kind = kind
        self.enabled = enabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A filtered page of rooms (Twilio's `Status`, `UniqueName`, `DateCreatedAfter`, `DateCreatedBefore`).
public struct RoomQuery: Sendable, Equatable {
    public var accountSid: String
    public var status: RoomStatus?
    public var uniqueName: String?
    public var createdAfter: Int64?
    public var createdBefore: Int64?
    public var offset: Int
    public var limit: Int

    public init(accountSid: String, status: RoomStatus? = nil, uniqueName: String? = nil, createdAfter: Int64? = nil,
                createdBefore: Int64? = nil, offset: Int = 0, limit: Int = 50) {
        self.accountSid = accountSid
        self.status = status
        self.uniqueName = uniqueName
        self.createdAfter = createdAfter
        self.createdBefore = createdBefore
        self.offset = offset
        self.limit = limit
    }

    func matches(_ room: RoomRecord) -> Bool {
        room.accountSid == accountSid && (status.map { $0 == room.status } ?? true)
            && (uniqueName.map { $0 == room.uniqueName } ?? true)
            && (createdAfter.map { room.createdAt >= $0 } ?? true) && (createdBefore.map { room.createdAt <= $0 } ?? true)
    }
}
