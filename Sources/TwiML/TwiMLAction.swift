/// What the call engine must do next, as decided by `TwiMLInterpreter`.
public enum TwiMLAction: Sendable, Equatable {
    /// Answer the call (emitted once, before the first verb that needs media; never before a
    /// `<Reject>`, `<Hangup>`, `<Redirect>`, a leading `<Pause>`, or a `<Dial answerOnBridge="true">`).
    case answer
    /// Speak `text`; report `.mediaFinished` when done. `loop` ≥ 1 (a TwiML `loop="0"` arrives as 1000).
    case say(text: String, voice: String?, language: String?, loop: Int)
    /// Play the audio at `url` (resolved, absolute) `loop` times (≥ 1); report `.mediaFinished`.
    case play(url: String, loop: Int)
    /// Play DTMF tones (`w` = 0.5 s pause); report `.mediaFinished`.
    case playDigits(String)
    /// Stop the say/play in progress (a digit interrupted a `<Gather>` prompt, or a redirect). Do not
    /// report `.mediaFinished` for the stopped media.
    case stopMedia
    /// Start the dialed leg(s); report `.dialCompleted` when the dialed call ends or fails. The engine
    /// enforces timeout, timeLimit, hangupOnStar and recording.
    case dial(DialRequest)
    /// Hang up the dialed leg(s) started by `.dial` without reporting `.dialCompleted` (REST redirect).
    case cancelDial
    /// Start recording the caller; report `.recordingFinished`. The engine enforces maxLength,
    /// timeout and finishOnKey.
    case record(RecordRequest)
    /// Stop the recording in progress without reporting `.recordingFinished` (REST redirect).
    case stopRecording
    /// Request the next document. The engine adds the standard call parameters (CallSid, From, …)
    /// to `parameters`, signs the request, parses the response and reports `.documentFetched` or
    /// `.fetchFailed`. For GET the parameters go in the query string.
    case fetch(url: String, method: TwiMLMethod, parameters: [(String, String)])
    /// Refuse the unanswered call.
    case reject(reason: TwiMLRejectReason)
    /// End the call. The interpreter is finished; `failureReason` says why when it was an error.
    case hangup

    public static func == (a: TwiMLAction, b: TwiMLAction) -> Bool {
        switch (a, b) {
        case (.answer, .answer), (.stopMedia, .stopMedia), (.cancelDial, .cancelDial), (.stopRecording, .stopRecording),
             (.hangup, .hangup):
            return true
        case let (.say(t1, v1, l1, n1), .say(t2, v2, l2, n2)): return t1 == t2 && v1 == v2 && l1 == l2 && n1 == n2
        case let (.play(u1, n1), .play(u2, n2)): return u1 == u2 && n1 == n2
        case let (.playDigits(d1), .playDigits(d2)): return d1 == d2
        case let (.dial(r1), .dial(r2)): return r1 == r2
        case let (.record(r1), .record(r2)): return r1 == r2
        case let (.fetch(u1, m1, p1), .fetch(u2, m2, p2)):
            return u1 == u2 && m1 == m2 && p1.count == p2.count && zip(p1, p2).allSatisfy { $0 == $1 }
        case let (.reject(r1), .reject(r2)): return r1 == r2
        default: return false
        }
    }
}

/// What happened, reported by the call engine to `TwiMLInterpreter.handle(_:now:)`.
public enum TwiMLEvent: Sendable, Equatable {
    /// The current `.say`, `.play` or `.playDigits` finished (all loops).
    case mediaFinished
    /// The caller pressed a DTMF key (`0-9`, `*`, `#`).
    case digit(Character)
    /// The dialed call ended (or never connected).
    case dialCompleted(DialOutcome)
    /// The recording ended. `duration` in seconds; `digits` is the key that ended it, `hangup`, or empty.
    /// `errorCode` is set when the recording could not be written (the action still hears of it).
    case recordingFinished(url: String, duration: Int, digits: String, sid: String, errorCode: Int? = nil)
    /// The document requested by `.fetch` arrived; `url` is the URL it was fetched from.
    case documentFetched(TwiMLResponse, url: String)
    /// The document requested by `.fetch` could not be fetched or parsed.
    case fetchFailed(reason: String)
    /// A REST update (`Url=`) moves the live call to new TwiML, abandoning the current verb.
    case redirect(url: String, method: TwiMLMethod)
    /// A REST update (`Twiml=`) moves the live call to this document, abandoning the current verb.
    /// Its relative URLs resolve against the URL of the document it replaces.
    case replace(TwiMLResponse)
}

/// `DialCallStatus` as Twilio reports it to a `<Dial action>`.
public enum DialCallStatus: String, Sendable, Hashable, CaseIterable {
    case completed, busy, failed, canceled
    case noAnswer = "no-answer"
}

/// How a `<Dial>` ended.
public struct DialOutcome: Sendable, Hashable {
    public var status: DialCallStatus
    /// The SID of the dialed (child) call, when one was created.
    public var callSid: String?
    /// Seconds the dialed call lasted after answer.
    public var duration: Int
    /// Set when the `<Dial record>` produced a recording.
    public var recordingURL: String?
    public var recordingSid: String?
    public var recordingDuration: Int?

    public init(status: DialCallStatus, callSid: String? = nil, duration: Int = 0, recordingURL: String? = nil,
                recordingSid: String? = nil, recordingDuration: Int? = nil) {
        self.status = status
        self.callSid = callSid
        self.duration = duration
        self.recordingURL = recordingURL
        self.recordingSid = recordingSid
        self.recordingDuration = recordingDuration
    }

    /// The parameters Twilio sends to the `<Dial action>` URL.
    var actionParameters: [(String, String)] {
        var p = [("DialCallStatus", status.rawValue)]
        if let callSid {
            p.append(("DialCallSid", callSid))
            p.append(("DialCallDuration", String(duration)))
        }
        if let recordingURL { p.append(("RecordingUrl", recordingURL)) }
        if let recordingSid { p.append(("RecordingSid", recordingSid)) }
        if let recordingDuration { p.append(("RecordingDuration", String(recordingDuration))) }
        return p
    }
}

/// A `<Dial>` to carry out, with every URL resolved against the document URL. The action URL is
/// the interpreter's business and is not included.
public struct DialRequest: Sendable, Hashable {
    public var nouns: [TwiMLDialNoun]
    public var callerId: String?
    /// Seconds to ring.
    public var timeout: Int
    public var answerOnBridge: Bool
    public var record: TwiMLDialRecord
    public var hangupOnStar: Bool
    /// Maximum seconds of the dialed call.
    public var timeLimit: Int
    public var trim: TwiMLTrim
    public var recordingStatusCallback: String?
    public var recordingStatusCallbackMethod: TwiMLMethod

    public init(_ dial: TwiMLDial, documentURL: String) {
        let resolve = { (url: String?) in url.map { URIReference.resolve($0, against: documentURL) } }
        nouns = dial.nouns.map { noun in
            switch noun {
            case .client(var c):
                (c.url, c.statusCallback) = (resolve(c.url), resolve(c.statusCallback))
                return .client(c)
            case .number(var n):
                (n.url, n.statusCallback) = (resolve(n.url), resolve(n.statusCallback))
                return .number(n)
            case .sip(var s):
                (s.url, s.statusCallback) = (resolve(s.url), resolve(s.statusCallback))
                return .sip(s)
            case .conference(var c):
                (c.waitUrl, c.statusCallback) = (resolve(c.waitUrl), resolve(c.statusCallback))
                return .conference(c)
            }
        }
        callerId = dial.callerId
        timeout = dial.timeout
        answerOnBridge = dial.answerOnBridge
        record = dial.record
        hangupOnStar = dial.hangupOnStar
        timeLimit = dial.timeLimit
        trim = dial.trim
        recordingStatusCallback = resolve(dial.recordingStatusCallback)
        recordingStatusCallbackMethod = dial.recordingStatusCallbackMethod
    }
}

/// A `<Record>` to carry out, with its status callback resolved against the document URL.
public struct RecordRequest: Sendable, Hashable {
    /// Seconds.
    public var maxLength: Int
    /// Seconds of silence that end the recording.
    public var timeout: Int
    /// Keys that end the recording (possibly empty).
    public var finishOnKey: String
    public var playBeep: Bool
    public var trim: TwiMLTrim
    public var recordingStatusCallback: String?
    public var recordingStatusCallbackMethod: TwiMLMethod

    public init(_ record: TwiMLRecord, documentURL: String) {
        maxLength = record.maxLength
        timeout = record.timeout
        finishOnKey = record.finishOnKey
        playBeep = record.playBeep
        trim = record.trim
        recordingStatusCallback = record.recordingStatusCallback.map { URIReference.resolve($0, against: documentURL) }
        recordingStatusCallbackMethod = record.recordingStatusCallbackMethod
    }
}
