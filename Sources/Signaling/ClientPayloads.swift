// Payloads of the messages a client sends (docs/signaling.md, "Messages").

/// `hello`: the first message on a connection. Its `description` never shows the token.
public struct Hello: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The highest protocol version the client speaks.
    public var v: Int
    /// The access token (JWT) that authenticates the connection.
    public var token: String
    /// The session to resume after a dropped socket, from an earlier `welcome`.
    public var resume: String?
    /// The client's name and version, e.g. `parley-swift/0.5.0`.
    public var client: String?

    public init(v: Int = SignalingProtocol.version, token: String, resume: String? = nil, client: String? = nil) {
        self.v = v
        self.token = token
        self.resume = resume
        self.client = client
    }

    public var description: String {
        "Hello(v: \(v), token: <\(token.utf8.count) bytes>, resume: \(resume ?? "nil"), client: \(client ?? "nil"))"
    }
    public var debugDescription: String { description }
}

/// `invite`: an outgoing call.
public struct Invite: Sendable, Equatable {
    /// The client's name for the call (a UUID string), echoed in `callCreated`.
    public var callId: String
    /// Who to call; the application decides when the token names one.
    public var to: String?
    /// Custom parameters, passed to the application's Voice URL and to the callee.
    public var params: [String: String]
    /// The SDP offer.
    public var sdp: String

    public init(callId: String, to: String? = nil, params: [String: String] = [:], sdp: String) {
        self.callId = callId
        self.to = to
        self.params = params
        self.sdp = sdp
    }
}

/// `accept`: answers an incoming call with an SDP offer (the server is always the answerer).
public struct Accept: Sendable, Equatable {
    public var callSid: String
    /// The client's SDP offer for its leg.
    public var sdp: String

    public init(callSid: String, sdp: String) {
        self.callSid = callSid
        self.sdp = sdp
    }
}

/// Why a callee declines an incoming call.
public enum RejectReason: String, Sendable, Equatable, CaseIterable {
    /// The user declined (the caller gets 31603).
    case rejected
    /// The callee is busy (the caller gets 31486).
    case busy
}

/// `reject`: declines an incoming call.
public struct Reject: Sendable, Equatable {
    public var callSid: String
    /// `rejected` when absent on the wire.
    public var reason: RejectReason

    public init(callSid: String, reason: RejectReason = .rejected) {
        self.callSid = callSid
        self.reason = reason
    }
}

/// Names a call: by the server's `callSid`, or (for `cancel` before `callCreated` arrived) by the
/// client's `callId`. `ringing` and `connected` always carry `callSid`.
public struct CallReference: Sendable, Equatable {
    public var callSid: String?
    public var callId: String?

    public init(callSid: String? = nil, callId: String? = nil) {
        self.callSid = callSid
        self.callId = callId
    }
}

/// `hangup`: ends a call. From the server, `code` says why a call failed (31486 busy, …).
public struct Hangup: Sendable, Equatable {
    public var callSid: String
    /// A Parley error code when the call ended because of a failure.
    public var code: Int?
    public var reason: String?

    public init(callSid: String, code: Int? = nil, reason: String? = nil) {
        self.callSid = callSid
        self.code = code
        self.reason = reason
    }
}

/// `hold`: puts the other party on hold (`true`) or resumes it (`false`).
public struct Hold: Sendable, Equatable {
    public var callSid: String
    public var hold: Bool

    public init(callSid: String, hold: Bool) {
        self.callSid = callSid
        self.hold = hold
    }
}

/// `dtmf`: digits `0-9 * # A-D`, and `w` for a half-second pause.
public struct DTMF: Sendable, Equatable {
    public var callSid: String
    public var digits: String

    public init(callSid: String, digits: String) {
        self.callSid = callSid
        self.digits = digits
    }

    /// Characters allowed in `digits`.
    public static let allowedCharacters: Set<Character> = Set("0123456789*#ABCDabcdwW")
}

/// `message`: a user-defined call message, either direction.
public struct CallMessage: Sendable, Equatable {
    public var callSid: String
    /// The sender's identifier for the message, echoed in `messageSent` / `messageFailed`.
    public var messageId: String
    /// The body's media type, e.g. `application/json`.
    public var contentType: String
    /// The message type, e.g. `user-defined-message`.
    public var messageType: String
    /// At most `SignalingLimits.maxBodyBytes` bytes of UTF-8.
    public var body: String

    public init(callSid: String, messageId: String, contentType: String = "application/json",
                messageType: String = "user-defined-message", body: String) {
        self.callSid = callSid
        self.messageId = messageId
        self.contentType = contentType
        self.messageType = messageType
        self.body = body
    }
}

/// `iceRestart`: a new SDP offer for a call's leg; the server replies with `answer`.
public struct IceRestart: Sendable, Equatable {
    public var callSid: String
    public var sdp: String

    public init(callSid: String, sdp: String) {
        self.callSid = callSid
        self.sdp = sdp
    }
}
