/// One message of the Parley signaling protocol (docs/signaling.md), without its envelope
/// (`id`/`ref`, see `SignalingEnvelope`).
///
/// Each case is one wire `"type"`. The codec decodes every type whichever side sent it; a
/// receiver checks `sender` to refuse messages that the other side may not send.
public enum SignalingMessage: Sendable, Equatable {
    // client → server
    /// Authenticates the connection (first message): protocol version, access token, optional resume.
    case hello(Hello)
    /// Receive invites for the token's identity on this connection.
    case listen
    /// Stop receiving invites on this connection.
    case unlisten
    /// An outgoing call with an SDP offer.
    case invite(Invite)
    /// Answers an incoming call with an SDP offer (the server is always the ICE-lite answerer).
    case accept(Accept)
    /// Declines an incoming call.
    case reject(Reject)
    /// The caller gives up before the call is answered.
    case cancel(CallReference)
    /// Ends a call (either direction).
    case hangup(Hangup)
    /// Puts the other party on hold or takes it off hold.
    case hold(Hold)
    /// Signaling DTMF (media carries RFC 4733 events too).
    case dtmf(DTMF)
    /// A user-defined call message (either direction); body at most 10 KiB.
    case message(CallMessage)
    /// A new SDP offer with fresh ICE credentials; the server replies with `.answer`.
    case iceRestart(IceRestart)
    /// Heartbeat request (either direction).
    case ping
    /// Heartbeat reply (either direction).
    case pong
    // server → client
    /// The hello was accepted.
    case welcome(Welcome)
    /// The connection now receives invites.
    case listening
    /// The server accepted an invite and named the call.
    case callCreated(CallCreated)
    /// The callee is being alerted.
    case ringing(CallReference)
    /// The server's SDP answer: media can start (early media may flow before `connected`).
    case answer(Answer)
    /// The call is answered / bridged.
    case connected(CallReference)
    /// An invite for the connection's identity.
    case incoming(Incoming)
    /// An incoming invite went away (caller cancelled, answered elsewhere, timeout).
    case cancelled(Cancelled)
    /// A call message was delivered to the call.
    case messageSent(MessageAck)
    /// A call message was not delivered.
    case messageFailed(MessageFailure)
    /// A resumed session and the calls it still has.
    case resumed(Resumed)
    /// A protocol or request error.
    case error(SignalingErrorBody)

    /// The wire `"type"` of the message.
    public var type: SignalingMessageType {
        switch self {
        case .hello: .hello
        case .listen: .listen
        case .unlisten: .unlisten
        case .invite: .invite
        case .accept: .accept
        case .reject: .reject
        case .cancel: .cancel
        case .hangup: .hangup
        case .hold: .hold
        case .dtmf: .dtmf
        case .message: .message
        case .iceRestart: .iceRestart
        case .ping: .ping
        case .pong: .pong
        case .welcome: .welcome
        case .listening: .listening
        case .callCreated: .callCreated
        case .ringing: .ringing
        case .answer: .answer
        case .connected: .connected
        case .incoming: .incoming
        case .cancelled: .cancelled
        case .messageSent: .messageSent
        case .messageFailed: .messageFailed
        case .resumed: .resumed
        case .error: .error
        }
    }

    /// Which side may send the message.
    public var sender: SignalingSender { type.sender }
}

/// The side of a signaling connection that may send a message type.
public enum SignalingSender: Sendable, Equatable {
    case client, server, either
}

/// Every wire `"type"` of protocol version 1. Types starting with `room.` are reserved for rooms.
public enum SignalingMessageType: String, Sendable, CaseIterable {
    case hello, listen, unlisten, invite, accept, reject, cancel, hangup, hold, dtmf, message, iceRestart
    case ping, pong
    case welcome, listening, callCreated, ringing, answer, connected, incoming, cancelled
    case messageSent, messageFailed, resumed, error

    /// The namespace reserved for room messages (`room.join`, …); not part of version 1.
    public static let reservedRoomPrefix = "room."

    /// Which side may send this type.
    public var sender: SignalingSender {
        switch self {
        case .hello, .listen, .unlisten, .invite, .accept, .reject, .cancel, .hold, .dtmf, .iceRestart: .client
        case .hangup, .message, .ping, .pong: .either
        case .welcome, .listening, .callCreated, .ringing, .answer, .connected, .incoming, .cancelled,
             .messageSent, .messageFailed, .resumed, .error: .server
        }
    }
}
