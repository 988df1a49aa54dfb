/// Voice state: applications, calls, push bindings and recordings. `SQLiteAccountStore` persists
/// it (same file, same migrations); `InMemoryAccountStore` is the twin for tests. Both pass the
/// same suite. Times are seconds since the epoch unless a name says otherwise.
public protocol VoiceStore: Sendable {
    // MARK: Applications (`AP…`)

    /// Creates an application under an existing account (`.notFound` otherwise).
    func createApplication(_ draft: ApplicationDraft, accountSid: String) throws(StoreError) -> Application
    func application(sid: String) throws(StoreError) -> Application?
    /// The account's applications, oldest first; `friendlyName` filters exactly when given.
    func applications(accountSid: String, friendlyName: String?) throws(StoreError) -> [Application]
    /// Replaces the mutable fields; `.notFound` if there is no such application.
    func updateApplication(_ application: Application) throws(StoreError) -> Application
    /// False if there was no such application.
    func deleteApplication(sid: String) throws(StoreError) -> Bool

    // MARK: Calls (`CA…`)

    /// Inserts a new call row (`.conflict` if the SID exists).
    func insertCall(_ call: CallRecord) throws(StoreError)
    /// Overwrites the row with `call.sid` (`.notFound` if absent).
    func updateCall(_ call: CallRecord) throws(StoreError)
    func call(sid: String) throws(StoreError) -> CallRecord?
    /// Calls matching `query`, newest first (start time, then insertion order), one page.
    func calls(_ query: CallQuery) throws(StoreError) -> [CallRecord]
    /// Removes the call's row (its recordings stay); false if there was no such call.
    func deleteCall(sid: String) throws(StoreError) -> Bool
    /// Every call of every account whose status is not final, oldest first: what a server that
    /// stopped without ending them left behind.
    func unfinishedCalls() throws(StoreError) -> [CallRecord]

    // MARK: Liveness

    /// Records that the server is running at `time` (its heartbeat).
    func recordLiveness(at time: Int64) throws(StoreError)
    /// The last heartbeat recorded, if any.
    func lastLiveness() throws(StoreError) -> Int64?

    // MARK: Push bindings

    /// Inserts, or renews (new `expiresAt`) the binding with the same account, identity and device token.
    func upsertBinding(_ binding: PushBinding) throws(StoreError) -> PushBinding
    /// Unexpired bindings of `identity` at `now`.
    func bindings(accountSid: String, identity: String, now: Int64) throws(StoreError) -> [PushBinding]
    /// Sets a binding's expiry (its TTL restarts whenever it is used). `.notFound` if absent.
    func renewBinding(sid: String, expiresAt: Int64) throws(StoreError)
    /// Removes the binding for this device token; false if there was none.
    func deleteBinding(accountSid: String, identity: String, deviceToken: String) throws(StoreError) -> Bool

    // MARK: Recordings (`RE…`)

    func insertRecording(_ recording: RecordingRecord) throws(StoreError)
    func recording(sid: String) throws(StoreError) -> RecordingRecord?
    /// The account's recordings, newest first; only `callSid`'s when given.
    func recordings(accountSid: String, callSid: String?) throws(StoreError) -> [RecordingRecord]
    /// Removes the recording's row (not its file); false if there was no such recording.
    func deleteRecording(sid: String) throws(StoreError) -> Bool
}

/// Everything `parley-server` keeps.
public typealias PlatformStore = AccountStore & VoiceStore & InsightsStore & RoomStore & RoomRecordingStore & SIPCredentialStore
    & PhoneNumberStore
    & SIPRegistrationStore

/// The fields a client sets on an application.
public struct ApplicationDraft: Sendable, Equatable {
    public var friendlyName: String
    public var voiceURL: String?
    public var voiceMethod: String
    public var statusCallback: String?
    public var statusCallbackMethod: String

    public init(friendlyName: String, voiceURL: String? = nil, voiceMethod: String = "POST",
                statusCallback: String? = nil, statusCallbackMethod: String = "POST") {
        self.friendlyName = friendlyName
        self.voiceURL = voiceURL
        self.voiceMethod = voiceMethod
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
    }
}

/// A voice application: where the server fetches TwiML for outgoing calls and sends status callbacks.
public struct Application: Sendable, Equatable {
    public let sid: String
    public let accountSid: String
    public var friendlyName: String
    public var voiceURL: String?
    public var voiceMethod: String
    public var statusCallback: String?
    public var statusCallbackMethod: String
    public let createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, draft: ApplicationDraft, createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        friendlyName = draft.friendlyName
        voiceURL = draft.voiceURL
        voiceMethod = draft.voiceMethod
        statusCallback = draft.statusCallback
        statusCallbackMethod = draft.statusCallbackMethod
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var draft: ApplicationDraft {
        ApplicationDraft(friendlyName: friendlyName, voiceURL: voiceURL, voiceMethod: voiceMethod,
                         statusCallback: statusCallback, statusCallbackMethod: statusCallbackMethod)
    }
}

/// Twilio's call statuses (the `Status` of a Call resource).
public enum CallStatus: String, Sendable, CaseIterable {
    case queued, initiated, ringing
    case inProgress = "in-progress"
    case completed, busy, failed
    case noAnswer = "no-answer"
    case canceled

    /// Completed, busy, failed, no-answer or canceled: the call is over.
    public var isFinal: Bool {
        switch self {
        case .completed, .busy, .failed, .noAnswer, .canceled: true
        case .queued, .initiated, .ringing, .inProgress: false
        }
    }
}

/// One call leg as the Calls REST resource shows it.
public struct CallRecord: Sendable, Equatable {
    public let sid: String
    public let accountSid: String
    /// The parent call for a leg created by `<Dial>`.
    public var parentCallSid: String?
    public var applicationSid: String?
    /// `client:alice`, a number, or a SIP URI.
    public var from: String
    public var to: String
    /// `inbound`, `outbound-api` or `outbound-dial`.
    public var direction: String
    public var status: CallStatus
    /// Seconds since the epoch; `startTime` is when the call was created.
    public var startTime: Int64
    public var answerTime: Int64?
    public var endTime: Int64?
    /// Seconds from answer to end (0 when never answered).
    public var duration: Int64?
    /// The Parley/Twilio error code the call ended with, if any.
    public var errorCode: Int?
    public var errorMessage: String?
    /// Where this call's status callbacks go (the call's own or its application's).
    public var statusCallback: String?
    public var statusCallbackMethod: String?
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(sid: String, accountSid: String, parentCallSid: String? = nil, applicationSid: String? = nil,
                from: String, to: String, direction: String, status: CallStatus, startTime: Int64,
                answerTime: Int64? = nil, endTime: Int64? = nil, duration: Int64? = nil, errorCode: Int? = nil,
                errorMessage: String? = nil, statusCallback: String? = nil, statusCallbackMethod: String? = nil,
                createdAt: Int64, updatedAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.parentCallSid = parentCallSid
        self.applicationSid = applicationSid
        self.from = from
        self.to = to
        self.direction = direction
        self.status = status
        self.startTime = startTime
        self.answerTime = answerTime
        self.endTime = endTime
        self.duration = duration
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A filtered page of calls (Twilio's list filters and paging).
public struct CallQuery: Sendable, Equatable {
    public var accountSid: String
    public var status: CallStatus?
    public var to: String?
    public var from: String?
    public var parentCallSid: String?
    /// Start time bounds, inclusive, seconds since the epoch (`StartTime>=` / `StartTime<=`;
    /// `StartTime=` a day gives both ends of that day).
    public var startedOnOrAfter: Int64?
    public var startedOnOrBefore: Int64?
    /// End time bounds, inclusive (`EndTime>=` / `EndTime<=`); a call that has not ended never matches.
    public var endedOnOrAfter: Int64? = nil
    public var endedOnOrBefore: Int64? = nil
    public var offset: Int
    public var limit: Int

    public init(accountSid: String, status: CallStatus? = nil, to: String? = nil, from: String? = nil,
                parentCallSid: String? = nil, startedOnOrAfter: Int64? = nil, startedOnOrBefore: Int64? = nil,
                offset: Int = 0, limit: Int = 50) {
        self.accountSid = accountSid
        self.status = status
        self.to = to
        self.from = from
        self.parentCallSid = parentCallSid
        self.startedOnOrAfter = startedOnOrAfter
        self.startedOnOrBefore = startedOnOrBefore
        self.offset = offset
        self.limit = limit
    }
}

/// Where to push incoming-call notifications for an identity.
public struct PushBinding: Sendable, Equatable {
    /// `BS…`
    public let sid: String
    public let accountSid: String
    public let identity: String
    /// `apns` (VoIP) or `webhook`.
    public var provider: String
    /// The device's push token (hex for APNs), as the SDK registered it.
    public var deviceToken: String
    public var createdAt: Int64
    /// One year after the last registration or use.
    public var expiresAt: Int64

    public init(sid: String, accountSid: String, identity: String, provider: String, deviceToken: String,
                createdAt: Int64, expiresAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.identity = identity
        self.provider = provider
        self.deviceToken = deviceToken
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// A binding lives one year from its last registration or use.
    public static let timeToLive: Int64 = 365 * 24 * 3600
}

/// A recording made by `<Record>` or `<Dial record=…>`: a WAV file on the server's disk.
public struct RecordingRecord: Sendable, Equatable {
    /// `RE…`
    public let sid: String
    public let accountSid: String
    public let callSid: String
    /// Seconds of audio.
    public var duration: Int64
    public var channels: Int
    public var sampleRate: Int
    /// `completed`, `failed` or `absent`.
    public var status: String
    /// The file on the server (not exposed over REST; the media URL is).
    public var filePath: String
    /// `RecordVerb` or `DialVerb`.
    public var source: String
    public var createdAt: Int64

    public init(sid: String, accountSid: String, callSid: String, duration: Int64, channels: Int, sampleRate: Int,
                status: String, filePath: String, source: String, createdAt: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.callSid = callSid
        self.duration = duration
        self.channels = channels
        self.sampleRate = sampleRate
        self.status = status
        self.filePath = filePath
        self.source = source
        self.createdAt = createdAt
    }
}
