/// Rooms' track recordings and compositions as the Video v1 REST API shows them (Twilio's
/// Recording `RT…` and Composition `CJ…` resources), and each room's recording rules.
/// `SQLiteAccountStore` persists them (same file, same migrations), `InMemoryAccountStore` is the
/// twin; both pass one suite. Times are seconds since the epoch; the media files live in the
/// server's recordings directory and the rows say where.
public protocol RoomRecordingStore: Sendable {
    /// Inserts a recording (`.conflict` when its SID exists).
    func insertRoomRecording(_ recording: RoomRecordingRecord) throws(StoreError)
    /// Overwrites the row with `recording.sid` (`.notFound` if absent).
    func updateRoomRecording(_ recording: RoomRecordingRecord) throws(StoreError)
    func roomRecording(sid: String) throws(StoreError) -> RoomRecordingRecord?
    /// Recordings matching `query`, newest first.
    func roomRecordings(_ query: RoomRecordingQuery) throws(StoreError) -> [RoomRecordingRecord]
    /// Every account's recordings still `processing`, oldest first: after a restart, the ones no
    /// process is writing any more.
    func unfinishedRoomRecordings() throws(StoreError) -> [RoomRecordingRecord]

    func insertComposition(_ composition: CompositionRecord) throws(StoreError)
    func updateComposition(_ composition: CompositionRecord) throws(StoreError)
    func composition(sid: String) throws(StoreError) -> CompositionRecord?
    /// Compositions matching `query`, newest first.
    func compositions(_ query: CompositionQuery) throws(StoreError) -> [CompositionRecord]
    /// Every account's compositions `enqueued` or `processing`, oldest first.
    func unfinishedCompositions() throws(StoreError) -> [CompositionRecord]

    /// A room's recording rules as the REST API last set them (Twilio's JSON array), if ever.
    func recordingRules(roomSid: String) throws(StoreError) -> StoredRecordingRules?
    func setRecordingRules(_ rules: StoredRecordingRules) throws(StoreError)
}

/// Twilio's recording statuses.
public enum RoomRecordingStatus: String, Sendable, CaseIterable {
    case processing, completed, deleted, failed
}

/// One track's recording (`RT…`): one continuous stretch of a published track, from when the
/// rules started recording it to when they stopped, the track went or the room ended.
public struct RoomRecordingRecord: Sendable, Equatable {
    public let sid: String
    public let accountSid: String
    public let roomSid: String
    public let participantSid: String
    /// The published track (`MT…`), Twilio's `source_sid`.
    public let sourceSid: String
    public var trackName: String
    /// `audio` or `video`.
    public var kind: TrackKind
    /// Twilio's codec names: `OPUS`, `PCMU`, `VP8`, `H264`.
    public var codec: String
    /// `mka` (audio) or `mkv` (video): Matroska.
    public var container: String
    public var status: RoomRecordingStatus
    /// Whole seconds, rounded (a sub-second recording counts 1), once completed.
    public var duration: Int64?
    /// Bytes of the media file, once completed.
    public var size: Int64?
    /// Milliseconds since the Unix epoch at the recording's first media: the offsets of one
    /// room's recordings line them up.
    public var offset: Int64
    /// The media file: the live file while processing, the Matroska file once completed.
    public var filePath: String
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, roomSid: String, participantSid: String, sourceSid: String,
                trackName: String, kind: TrackKind, codec: String, container: String,
                status: RoomRecordingStatus = .processing, duration: Int64? = nil, size: Int64? = nil, offset: Int64,
                filePath: String, createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.roomSid = roomSid
        self.participantSid = participantSid
        self.sourceSid = sourceSid
        self.trackName = trackName
        self.kind = kind
        self.codec = codec
        self.container = container
        self.status = status
        self.duration = duration
        self.size = size
        self.offset = offset
        self.filePath = filePath
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The filters of `GET /v1/Recordings` and `/v1/Rooms/{RM}/Recordings`.
public struct RoomRecordingQuery: Sendable, Equatable {
    public var accountSid: String
    public var roomSid: String?
    public var status: RoomRecordingStatus?
    public var sourceSid: String?
    /// Every SID given must be the room's or the participant's (Twilio's `GroupingSid`, repeatable).
    public var groupingSids: [String]
    public var kind: TrackKind?
    public var createdAfter: Int64?
    public var createdBefore: Int64?

    public init(accountSid: String, roomSid: String? = nil, status: RoomRecordingStatus? = nil, sourceSid: String? = nil,
                groupingSids: [String] = [], kind: TrackKind? = nil, createdAfter: Int64? = nil, createdBefore: Int64? = nil) {
        self.accountSid = accountSid
        self.roomSid = roomSid
        self.status = status
        self.sourceSid = sourceSid
        self.groupingSids = groupingSids
        self.kind = kind
        self.createdAfter = createdAfter
        self.createdBefore = createdBefore
    }

    func matches(_ r: RoomRecordingRecord) -> Bool {
        r.accountSid == accountSid && (roomSid.map { $0 == r.roomSid } ?? true) && (status.map { $0 == r.status } ?? true)
            && (sourceSid.map { $0 == r.sourceSid } ?? true) && (kind.map { $0 == r.kind } ?? true)
            && groupingSids.allSatisfy { $0 == r.roomSid || $0 == r.participantSid }
            && (createdAfter.map { r.createdAt >= $0 } ?? true) && (createdBefore.map { r.createdAt <= $0 } ?? true)
    }
}

/// Twilio's composition statuses.
public enum CompositionStatus: String, Sendable, CaseIterable {
    case enqueued, processing, completed, deleted, failed
}

/// A composition (`CJ…`): a room's recordings mixed (audio) and laid out (video) into one file.
public struct CompositionRecord: Sendable, Equatable {
    public let sid: String
    public let accountSid: String
    public let roomSid: String
    public var status: CompositionStatus
    /// Track names (with `*` wildcards) whose audio is mixed, less the excluded ones.
    public var audioSources: [String]
    public var audioSourcesExcluded: [String]
    /// The VideoLayout as the request gave it (Twilio's JSON object); empty: audio only.
    public var videoLayout: String
    /// `WIDTHxHEIGHT`.
    public var resolution: String
    /// `webm` or `mp4`.
    public var format: String
    public var trim: Bool
    public var statusCallback: String?
    public var statusCallbackMethod: String
    public var duration: Int64?
    public var size: Int64?
    /// Bits per second of the file, once completed.
    public var bitrate: Int64?
    public var filePath: String?
    /// Why it failed (a Video error code and a message).
    public var errorCode: Int?
    public var errorMessage: String?
    public let createdAt: Int64
    public var completedAt: Int64?
    public var deletedAt: Int64?
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, roomSid: String, status: CompositionStatus = .enqueued,
                audioSources: [String] = [], audioSourcesExcluded: [String] = [], videoLayout: String = "",
                resolution: String = "640x480", format: String = "webm", trim: Bool = true, statusCallback: String? = nil,
                statusCallbackMethod: String = "POST", duration: Int64? = nil, size: Int64? = nil, bitrate: Int64? = nil,
                filePath: String? = nil, errorCode: Int? = nil, errorMessage: String? = nil, createdAt: Int64,
                completedAt: Int64? = nil, deletedAt: Int64? = nil, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.roomSid = roomSid
        self.status = status
        self.audioSources = audioSources
        self.audioSourcesExcluded = audioSourcesExcluded
        self.videoLayout = videoLayout
        self.resolution = resolution
        self.format = format
        self.trim = trim
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.duration = duration
        self.size = size
        self.bitrate = bitrate
        self.filePath = filePath
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.createdAt = createdAt
        self.completedAt = completedAt
        self.deletedAt = deletedAt
        self.updatedAt = updatedAt
    }
}

/// The filters of `GET /v1/Compositions`.
public struct CompositionQuery: Sendable, Equatable {
    public var accountSid: String
    public var roomSid: String?
    public var status: CompositionStatus?
    public var createdAfter: Int64?
    public var createdBefore: Int64?

    public init(accountSid: String, roomSid: String? = nil, status: CompositionStatus? = nil, createdAfter: Int64? = nil,
                createdBefore: Int64? = nil) {
        self.accountSid = accountSid
        self.roomSid = roomSid
        self.status = status
        self.createdAfter = createdAfter
        self.createdBefore = createdBefore
    }

    func matches(_ c: CompositionRecord) -> Bool {
        c.accountSid == accountSid && (roomSid.map { $0 == c.roomSid } ?? true) && (status.map { $0 == c.status } ?? true)
            && (createdAfter.map { c.createdAt >= $0 } ?? true) && (createdBefore.map { c.createdAt <= $0 } ?? true)
    }
}

/// A room's recording rules as set through the REST API: the JSON text, and when.
public struct StoredRecordingRules: Sendable, Equatable {
    public let roomSid: String
    /// Twilio's rules array, e.g. `[{"type":"include","kind":"audio"}]`.
    public var rules: String
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(roomSid: String, rules: String, createdAt: Int64, updatedAt: Int64) {
        self.roomSid = roomSid
        self.rules = rules
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
