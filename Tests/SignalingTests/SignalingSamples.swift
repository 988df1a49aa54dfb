import ParleyCore
import Signaling

/// One envelope of every message type, with optional fields both present and absent.
enum SignalingSamples {
    static let sdp = "v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
    static let sid = "CA0123456789abcdef0123456789abcdef"
    static let callId = "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"

    static let all: [SignalingEnvelope] = voice + RoomSamples.all + RoomPeerCodecTests.samples

    static let voice: [SignalingEnvelope] = [
        SignalingEnvelope(id: "1", message: .hello(Hello(token: "eyJ.eyJ.sig", resume: "SS1", client: "parley-swift/0.5.0"))),
        SignalingEnvelope(.hello(Hello(v: 7, token: "t"))),
        SignalingEnvelope(id: "2", message: .listen),
        SignalingEnvelope(.unlisten),
        SignalingEnvelope(id: "4", message: .invite(Invite(callId: callId, to: "bob", params: ["customer": "42", "note": "ünïcödé \"quoted\"\tand tab"], sdp: sdp))),
        SignalingEnvelope(.invite(Invite(callId: callId, to: "", sdp: "v=0"))),
        SignalingEnvelope(.invite(Invite(callId: callId, sdp: sdp))),
        SignalingEnvelope(id: "7", message: .accept(Accept(callSid: sid, sdp: sdp))),
        SignalingEnvelope(.reject(Reject(callSid: sid))),
        SignalingEnvelope(.reject(Reject(callSid: sid, reason: .busy))),
        SignalingEnvelope(.cancel(CallReference(callSid: sid))),
        SignalingEnvelope(id: "5", message: .cancel(CallReference(callId: callId))),
        SignalingEnvelope(.cancel(CallReference(callSid: sid, callId: callId))),
        SignalingEnvelope(.hangup(Hangup(callSid: sid))),
        SignalingEnvelope(.hangup(Hangup(callSid: sid, code: 31486, reason: "Busy Here"))),
        SignalingEnvelope(.hangup(Hangup(callSid: sid, code: -1, reason: ""))),
        SignalingEnvelope(.hold(Hold(callSid: sid, hold: true))),
        SignalingEnvelope(.hold(Hold(callSid: sid, hold: false))),
        SignalingEnvelope(.dtmf(DTMF(callSid: sid, digits: "0123456789*#ABCDabcdwW"))),
        SignalingEnvelope(id: "9", message: .message(CallMessage(callSid: sid, messageId: "m-1", body: "{\"a\":[1,2]}\n\\ / 🎉"))),
        SignalingEnvelope(.message(CallMessage(callSid: sid, messageId: "m-2", contentType: "text/plain", messageType: "x", body: ""))),
        SignalingEnvelope(id: "11", message: .iceRestart(IceRestart(callSid: sid, sdp: sdp))),
        SignalingEnvelope(id: "p1", message: .ping),
        SignalingEnvelope(ref: "p1", message: .pong),
        SignalingEnvelope(ref: "1", message: .welcome(Welcome(session: "SS1", identity: "alice"))),
        SignalingEnvelope(.welcome(Welcome(v: 1, session: "SS2", identity: "a b@example.com", resumeWindow: 0, heartbeat: 3600))),
        SignalingEnvelope(ref: "2", message: .listening),
        SignalingEnvelope(ref: "4", message: .callCreated(CallCreated(callId: callId, callSid: sid))),
        SignalingEnvelope(.ringing(CallReference(callSid: sid))),
        SignalingEnvelope(.ringing(CallReference(callSid: sid, callId: callId))),
        SignalingEnvelope(.answer(Answer(callSid: sid, sdp: sdp))),
        SignalingEnvelope(.connected(CallReference(callSid: sid))),
        SignalingEnvelope(.incoming(Incoming(callSid: sid, from: "client:alice", to: "client:bob", params: ["k": "v"], callerInfo: CallerInfo(isVerified: true)))),
        SignalingEnvelope(.incoming(Incoming(callSid: sid, from: "+15551234567", to: "client:bob", callerInfo: CallerInfo()))),
        SignalingEnvelope(.incoming(Incoming(callSid: sid, from: "", to: "bob"))),
        SignalingEnvelope(.cancelled(Cancelled(callSid: sid, code: .requestTerminated))),
        SignalingEnvelope(ref: "9", message: .messageSent(MessageAck(callSid: sid, messageId: "m-1"))),
        SignalingEnvelope(ref: "9", message: .messageFailed(MessageFailure(callSid: sid, messageId: "m-1", code: .tooManyRequests))),
        SignalingEnvelope(ref: "h2", message: .resumed(Resumed(session: "SS1", calls: [sid, "CA2"]))),
        SignalingEnvelope(.resumed(Resumed(session: "SS1", calls: []))),
        SignalingEnvelope(ref: "4", message: .error(SignalingErrorBody(code: .malformedRequest, message: "invite: missing field \"sdp\""))),
        SignalingEnvelope(id: "x", ref: "y", message: .error(SignalingErrorBody(code: 0, message: ""))),
    ]
}
