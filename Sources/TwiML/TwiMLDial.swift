/// `<Dial>`: connect the caller to other parties.
public struct TwiMLDial: Sendable, Hashable {
    /// What to dial: up to 10 of `<Client>`, `<Number>`, `<Sip>` (rung at once), or one `<Conference>`.
    /// A plain-text body is a `.number`.
    public var nouns: [TwiMLDialNoun]
    /// Where to fetch the next document when the dialed call ends; nil continues with the next verb.
    public var action: String?
    /// Default POST.
    public var method: TwiMLMethod
    /// Seconds to ring before giving up (`no-answer`); default 30.
    public var timeout: Int
    public var callerId: String?
    /// Keep the caller ringing (unanswered) until the dialed party answers; default false.
    public var answerOnBridge: Bool
    /// Default do-not-record.
    public var record: TwiMLDialRecord
    /// The caller pressing `*` ends the dialed call; default false.
    public var hangupOnStar: Bool
    /// Maximum seconds of the dialed call; default 14400 (4 hours).
    public var timeLimit: Int
    /// Default do-not-trim.
    public var trim: TwiMLTrim
    public var recordingStatusCallback: String?
    /// Default POST.
    public var recordingStatusCallbackMethod: TwiMLMethod

    public init(nouns: [TwiMLDialNoun], action: String? = nil, method: TwiMLMethod = .post, timeout: Int = 30,
                callerId: String? = nil, answerOnBridge: Bool = false, record: TwiMLDialRecord = .doNotRecord,
                hangupOnStar: Bool = false, timeLimit: Int = 14_400, trim: TwiMLTrim = .doNotTrim,
                recordingStatusCallback: String? = nil, recordingStatusCallbackMethod: TwiMLMethod = .post) {
        self.nouns = nouns
        self.action = action
        self.method = method
        self.timeout = timeout
        self.callerId = callerId
        self.answerOnBridge = answerOnBridge
        self.record = record
        self.hangupOnStar = hangupOnStar
        self.timeLimit = timeLimit
        self.trim = trim
        self.recordingStatusCallback = recordingStatusCallback
        self.recordingStatusCallbackMethod = recordingStatusCallbackMethod
    }
}

/// The `record` attribute of `<Dial>`. `true` and `false` (older TwiML) read as record-from-answer
/// and do-not-record.
public enum TwiMLDialRecord: String, Sendable, Hashable, CaseIterable {
    case doNotRecord = "do-not-record"
    case recordFromAnswer = "record-from-answer"
    case recordFromRinging = "record-from-ringing"
    case recordFromAnswerDual = "record-from-answer-dual"
    case recordFromRingingDual = "record-from-ringing-dual"
}

/// A noun inside `<Dial>`.
public enum TwiMLDialNoun: Sendable, Hashable {
    case client(TwiMLClient)
    case number(TwiMLNumber)
    case sip(TwiMLSip)
    case conference(TwiMLConference)
}

/// Call progress events a leg's `statusCallbackEvent` can ask for.
public enum TwiMLCallEvent: String, Sendable, Hashable, CaseIterable {
    case initiated, ringing, answered, completed
}

/// A `<Parameter name value>` passed to a `<Client>` (it reaches the callee's call invite).
public struct TwiMLParameter: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// `<Client>`: a Voice SDK identity, as text or as `<Identity>` plus `<Parameter>` children.
public struct TwiMLClient: Sendable, Hashable {
    public var identity: String
    public var parameters: [TwiMLParameter]
    /// TwiML run on the called party when it answers, before the calls connect.
    public var url: String?
    /// Default POST.
    public var method: TwiMLMethod
    public var statusCallback: String?
    /// Default POST.
    public var statusCallbackMethod: TwiMLMethod
    public var statusCallbackEvents: [TwiMLCallEvent]

    public init(identity: String, parameters: [TwiMLParameter] = [], url: String? = nil, method: TwiMLMethod = .post,
                statusCallback: String? = nil, statusCallbackMethod: TwiMLMethod = .post,
                statusCallbackEvents: [TwiMLCallEvent] = []) {
        self.identity = identity
        self.parameters = parameters
        self.url = url
        self.method = method
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.statusCallbackEvents = statusCallbackEvents
    }
}

/// `<Number>`: a phone number, dialed through an outbound SIP trunk.
public struct TwiMLNumber: Sendable, Hashable {
    public var number: String
    /// DTMF to send once answered: `0-9`, `*`, `#`, `w`, `W`.
    public var sendDigits: String?
    /// The outbound trunk the number goes through (`byoc`: a trunk's name); nil: the server's first.
    public var byoc: String?
    public var url: String?
    /// Default POST.
    public var method: TwiMLMethod
    public var statusCallback: String?
    /// Default POST.
    public var statusCallbackMethod: TwiMLMethod
    public var statusCallbackEvents: [TwiMLCallEvent]

    public init(number: String, sendDigits: String? = nil, byoc: String? = nil, url: String? = nil, method: TwiMLMethod = .post,
                statusCallback: String? = nil, statusCallbackMethod: TwiMLMethod = .post,
                statusCallbackEvents: [TwiMLCallEvent] = []) {
        self.number = number
        self.sendDigits = sendDigits
        self.byoc = byoc
        self.url = url
        self.method = method
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.statusCallbackEvents = statusCallbackEvents
    }
}

/// `<Sip>`: a SIP URI (no route until the SIP gateway exists). `description` hides the password.
public struct TwiMLSip: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var uri: String
    public var username: String?
    public var password: String?
    public var url: String?
    /// Default POST.
    public var method: TwiMLMethod
    public var statusCallback: String?
    /// Default POST.
    public var statusCallbackMethod: TwiMLMethod
    public var statusCallbackEvents: [TwiMLCallEvent]

    public init(uri: String, username: String? = nil, password: String? = nil, url: String? = nil,
                method: TwiMLMethod = .post, statusCallback: String? = nil, statusCallbackMethod: TwiMLMethod = .post,
                statusCallbackEvents: [TwiMLCallEvent] = []) {
        self.uri = uri
        self.username = username
        self.password = password
        self.url = url
        self.method = method
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.statusCallbackEvents = statusCallbackEvents
    }

    public var description: String {
        "TwiMLSip(uri: \(uri), username: \(username ?? "nil"), password: \(password == nil ? "nil" : "<redacted>"))"
    }

    public var debugDescription: String { description }
}

/// `<Conference>`: a named conference room.
public struct TwiMLConference: Sendable, Hashable {
    public var name: String
    /// Default false.
    public var muted: Bool
    /// `true`, `false`, `onEnter` or `onExit`; default `true`.
    public var beep: String
    /// Default true.
    public var startConferenceOnEnter: Bool
    /// Default false.
    public var endConferenceOnExit: Bool
    /// Hold music while waiting; nil means Twilio's default.
    public var waitUrl: String?
    /// Default POST.
    public var waitMethod: TwiMLMethod
    /// 2…250; default 250.
    public var maxParticipants: Int
    /// `do-not-record` (default) or `record-from-start`.
    public var record: String
    public var statusCallback: String?
    /// Default POST.
    public var statusCallbackMethod: TwiMLMethod
    /// Any of start, end, join, leave, mute, hold, modify, speaker, announcement.
    public var statusCallbackEvents: [String]
    public var participantLabel: String?

    public init(name: String, muted: Bool = false, beep: String = "true", startConferenceOnEnter: Bool = true,
                endConferenceOnExit: Bool = false, waitUrl: String? = nil, waitMethod: TwiMLMethod = .post,
                maxParticipants: Int = 250, record: String = "do-not-record", statusCallback: String? = nil,
                statusCallbackMethod: TwiMLMethod = .post, statusCallbackEvents: [String] = [],
                participantLabel: String? = nil) {
        self.name = name
        self.muted = muted
        self.beep = beep
        self.startConferenceOnEnter = startConferenceOnEnter
        self.endConferenceOnExit = endConferenceOnExit
        self.waitUrl = waitUrl
        self.waitMethod = waitMethod
        self.maxParticipants = maxParticipants
        self.record = record
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
        self.statusCallbackEvents = statusCallbackEvents
        self.participantLabel = participantLabel
    }
}
