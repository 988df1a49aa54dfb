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

    // rooms (docs/signaling.md, "Rooms")
    /// `room.join` (client → server): Joins a room with an SDP offer.
    case roomJoin(RoomJoin)
    /// `room.offer` (client → server): A renegotiation offer; the server replies with `.roomAnswer`.
    case roomOffer(RoomOffer)
    /// `room.trackEnabled` (client → server): Enables or disables a published track.
    case roomTrackEnabled(RoomTrackEnabled)
    /// `room.subscribe` (client → server): Subscribes to a remote track.
    case roomSubscribe(RoomTrackReference)
    /// `room.unsubscribe` (client → server): Unsubscribes from a remote track.
    case roomUnsubscribe(RoomTrackReference)
    /// `room.leave` (client → server): Leaves the room.
    case roomLeave
    /// `room.joined` (server → client): The join succeeded: the answer and the room's state.
    case roomJoined(RoomJoined)
    /// `room.answer` (server → client): The answer to a `room.offer`.
    case roomAnswer(RoomAnswer)
    /// `room.renegotiate` (server → client): The server needs more receive slots.
    case roomRenegotiate(RoomRenegotiate)
    /// `room.participantConnected` (server → client): A participant joined.
    case roomParticipantConnected(RoomParticipantConnected)
    /// `room.participantDisconnected` (server → client): A participant left.
    case roomParticipantDisconnected(RoomParticipantReference)
    /// `room.participantReconnecting` (server → client): A participant lost its connection.
    case roomParticipantReconnecting(RoomParticipantReference)
    /// `room.participantReconnected` (server → client): A participant is back.
    case roomParticipantReconnected(RoomParticipantReference)
    /// `room.trackPublished` (server → client): A remote participant published a track.
    case roomTrackPublished(RoomTrackPublished)
    /// `room.trackUnpublished` (server → client): A remote participant unpublished a track.
    case roomTrackUnpublished(RoomTrackUnpublished)
    /// `room.trackChanged` (server → client): A remote track was enabled or disabled.
    case roomTrackChanged(RoomTrackChanged)
    /// `room.subscribed` (server → client): A remote track flows in a receive slot.
    case roomSubscribed(RoomSubscribed)
    /// `room.unsubscribed` (server → client): A subscription ended.
    case roomUnsubscribed(RoomTrackReference)
    /// `room.subscriptionFailed` (server → client): A subscription failed.
    case roomSubscriptionFailed(RoomSubscriptionFailed)
    /// `room.trackSwitchedOff` (server → client): The server stopped forwarding a track (bandwidth).
    case roomTrackSwitchedOff(RoomTrackReference)
    /// `room.trackSwitchedOn` (server → client): The server forwards a track again.
    case roomTrackSwitchedOn(RoomTrackReference)
    /// `room.dominantSpeaker` (server → client): The dominant speaker changed.
    case roomDominantSpeaker(RoomDominantSpeaker)
    /// `room.networkQuality` (server → client): Network quality levels.
    case roomNetworkQuality(RoomNetworkQuality)
    /// `room.recording` (server → client): Recording started or stopped.
    case roomRecording(RoomRecording)
    /// `room.disconnected` (server → client): The server removed the participant from the room.
    case roomDisconnected(RoomDisconnected)
    /// `room.peerOffer` (either way, relayed): An SDP offer between two participants of a peer-to-peer room.
    case roomPeerOffer(RoomPeerDescription)
    /// `room.peerAnswer` (either way, relayed): The SDP answer to a `room.peerOffer`.
    case roomPeerAnswer(RoomPeerDescription)
    /// `room.peerCandidate` (either way, relayed): A trickled ICE candidate between two participants.
    case roomPeerCandidate(RoomPeerCandidate)

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
        case .roomJoin: .roomJoin
        case .roomOffer: .roomOffer
        case .roomTrackEnabled: .roomTrackEnabled
        case .roomSubscribe: .roomSubscribe
        case .roomUnsubscribe: .roomUnsubscribe
        case .roomLeave: .roomLeave
        case .roomJoined: .roomJoined
        case .roomAnswer: .roomAnswer
        case .roomRenegotiate: .roomRenegotiate
        case .roomParticipantConnected: .roomParticipantConnected
        case .roomParticipantDisconnected: .roomParticipantDisconnected
        case .roomParticipantReconnecting: .roomParticipantReconnecting
        case .roomParticipantReconnected: .roomParticipantReconnected
        case .roomTrackPublished: .roomTrackPublished
        case .roomTrackUnpublished: .roomTrackUnpublished
        case .roomTrackChanged: .roomTrackChanged
        case .roomSubscribed: .roomSubscribed
        case .roomUnsubscribed: .roomUnsubscribed
        case .roomSubscriptionFailed: .roomSubscriptionFailed
        case .roomTrackSwitchedOff: .roomTrackSwitchedOff
        case .roomTrackSwitchedOn: .roomTrackSwitchedOn
        case .roomDominantSpeaker: .roomDominantSpeaker
        case .roomNetworkQuality: .roomNetworkQuality
        case .roomRecording: .roomRecording
        case .roomDisconnected: .roomDisconnected
        case .roomPeerOffer: .roomPeerOffer
        case .roomPeerAnswer: .roomPeerAnswer
        case .roomPeerCandidate: .roomPeerCandidate
        }
    }

    /// Which side may send the message.
    public var sender: SignalingSender { type.sender }
}

/// The side of a signaling connection that may send a message type.
public enum SignalingSender: Sendable, Equatable {
    case client, server, either
}

/// Every wire `"type"` of protocol version 1; the `room.` family is versioned by `roomV` (`RoomProtocol`).
public enum SignalingMessageType: String, Sendable, CaseIterable {
    case hello, listen, unlisten, invite, accept, reject, cancel, hangup, hold, dtmf, message, iceRestart
    case ping, pong
    case welcome, listening, callCreated, ringing, answer, connected, incoming, cancelled
    case messageSent, messageFailed, resumed, error

    // rooms
    case roomJoin = "room.join"
    case roomOffer = "room.offer"
    case roomTrackEnabled = "room.trackEnabled"
    case roomSubscribe = "room.subscribe"
    case roomUnsubscribe = "room.unsubscribe"
    case roomLeave = "room.leave"
    case roomJoined = "room.joined"
    case roomAnswer = "room.answer"
    case roomRenegotiate = "room.renegotiate"
    case roomParticipantConnected = "room.participantConnected"
    case roomParticipantDisconnected = "room.participantDisconnected"
    case roomParticipantReconnecting = "room.participantReconnecting"
    case roomParticipantReconnected = "room.participantReconnected"
    case roomTrackPublished = "room.trackPublished"
    case roomTrackUnpublished = "room.trackUnpublished"
    case roomTrackChanged = "room.trackChanged"
    case roomSubscribed = "room.subscribed"
    case roomUnsubscribed = "room.unsubscribed"
    case roomSubscriptionFailed = "room.subscriptionFailed"
    case roomTrackSwitchedOff = "room.trackSwitchedOff"
    case roomTrackSwitchedOn = "room.trackSwitchedOn"
    case roomDominantSpeaker = "room.dominantSpeaker"
    case roomNetworkQuality = "room.networkQuality"
    case roomRecording = "room.recording"
    case roomDisconnected = "room.disconnected"
    case roomPeerOffer = "room.peerOffer"
    case roomPeerAnswer = "room.peerAnswer"
    case roomPeerCandidate = "room.peerCandidate"

    /// The prefix of the room family's types.
    public static let roomPrefix = "room."

    /// Which side may send this type.
    public var sender: SignalingSender {
        switch self {
        case .hello, .listen, .unlisten, .invite, .accept, .reject, .cancel, .hold, .dtmf, .iceRestart: .client
        case .hangup, .message, .ping, .pong: .either
        case .welcome, .listening, .callCreated, .ringing, .answer, .connected, .incoming, .cancelled,
             .messageSent, .messageFailed, .resumed, .error: .server
        case .roomJoin, .roomOffer, .roomTrackEnabled, .roomSubscribe, .roomUnsubscribe, .roomLeave: .client
        case .roomJoined, .roomAnswer, .roomRenegotiate, .roomParticipantConnected, .roomParticipantDisconnected, .roomParticipantReconnecting, .roomParticipantReconnected, .roomTrackPublished, .roomTrackUnpublished, .roomTrackChanged, .roomSubscribed, .roomUnsubscribed, .roomSubscriptionFailed, .roomTrackSwitchedOff, .roomTrackSwitchedOn, .roomDominantSpeaker, .roomNetworkQuality, .roomRecording, .roomDisconnected: .server
        case .roomPeerOffer, .roomPeerAnswer, .roomPeerCandidate: .either
        }
    }
}
