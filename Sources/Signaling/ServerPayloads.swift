import ParleyCore

// Payloads of the messages the server sends (docs/signaling.md, "Messages").

/// `welcome`: the reply to a valid `hello`.
public struct Welcome: Sendable, Equatable {
    /// The protocol version both sides speak from now on.
    public var v: Int
    /// The session id; send it as `hello.resume` to pick the session up after a dropped socket.
    public var session: String
    /// The identity of the access token.
    public var identity: String
    /// Seconds the server keeps the session and its calls after the socket drops.
    public var resumeWindow: Int
    /// Seconds between heartbeats; a peer silent for three of them is dead.
    public var heartbeat: Int

    public init(v: Int = SignalingProtocol.version, session: String, identity: String,
                resumeWindow: Int = SignalingProtocol.resumeWindowSeconds,
                heartbeat: Int = SignalingProtocol.heartbeatSeconds) {
        self.v = v
        self.session = session
        self.identity = identity
        self.resumeWindow = resumeWindow
        self.heartbeat = heartbeat
    }
}

/// `callCreated`: the server accepted an invite and named the call.
public struct CallCreated: Sendable, Equatable {
    public var callId: String
    public var callSid: String

    public init(callId: String, callSid: String) {
        self.callId = callId
        self.callSid = callSid
    }
}

/// `answer`: the server's SDP answer to an `invite`, `accept` or `iceRestart` offer.
public struct Answer: Sendable, Equatable {
    public var callSid: String
    public var sdp: String

    public init(callSid: String, sdp: String) {
        self.callSid = callSid
        self.sdp = sdp
    }
}

/// What the server knows about the caller of an incoming call.
public struct CallerInfo: Sendable, Equatable {
    /// Whether the caller's number was verified (SHAKEN/STIR); nil when unknown.
    public var isVerified: Bool?

    public init(isVerified: Bool? = nil) { self.isVerified = isVerified }
}

/// `incoming`: an invite for the connection's identity.
public struct Incoming: Sendable, Equatable {
    public var callSid: String
    /// The caller, e.g. `client:alice` or a phone number.
    public var from: String
    /// The callee, e.g. `client:bob`.
    public var to: String
    /// Custom parameters of the call (`<Parameter>` of `<Client>`, or the caller's params).
    public var params: [String: String]
    public var callerInfo: CallerInfo?

    public init(callSid: String, from: String, to: String, params: [String: String] = [:], callerInfo: CallerInfo? = nil) {
        self.callSid = callSid
        self.from = from
        self.to = to
        self.params = params
        self.callerInfo = callerInfo
    }
}

/// `cancelled`: an incoming invite went away before this connection answered it.
public struct Cancelled: Sendable, Equatable {
    public var callSid: String
    /// 31487 caller cancelled, 31008 answered elsewhere or rejected by another device, 31408 timeout.
    public var code: Int
    public var reason: String

    public init(callSid: String, code: Int, reason: String) {
        self.callSid = callSid
        self.code = code
        self.reason = reason
    }

    public init(callSid: String, code: ParleyError.Code, reason: String? = nil) {
        self.init(callSid: callSid, code: code.rawValue, reason: reason ?? code.text)
    }
}

/// `messageSent`: a call message was delivered to the call.
public struct MessageAck: Sendable, Equatable {
    public var callSid: String
    public var messageId: String

    public init(callSid: String, messageId: String) {
        self.callSid = callSid
        self.messageId = messageId
    }
}

/// `messageFailed`: a call message was not delivered (31429 over the rate, 31481 no such call).
public struct MessageFailure: Sendable, Equatable {
    public var callSid: String
    public var messageId: String
    public var code: Int
    public var reason: String

    public init(callSid: String, messageId: String, code: Int, reason: String) {
        self.callSid = callSid
        self.messageId = messageId
        self.code = code
        self.reason = reason
    }

    public init(callSid: String, messageId: String, code: ParleyError.Code, reason: String? = nil) {
        self.init(callSid: callSid, messageId: messageId, code: code.rawValue, reason: reason ?? code.text)
    }
}

/// `resumed`: the session named in `hello.resume` is back on this connection.
public struct Resumed: Sendable, Equatable {
    public var session: String
    /// The session's calls that are still live; any other call of the session has ended.
    public var calls: [String]

    public init(session: String, calls: [String]) {
        self.session = session
        self.calls = calls
    }
}

/// `error`: a protocol or request error. The request's `id` travels as the envelope's `ref`.
public struct SignalingErrorBody: Sendable, Equatable {
    /// A Parley error code (docs/signaling.md, "Errors").
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public init(code: ParleyError.Code, message: String? = nil) {
        self.init(code: code.rawValue, message: message ?? code.text)
    }
}
