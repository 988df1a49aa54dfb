import ParleyCore
import Testing
@testable import Signaling

@Suite struct SignalingCodecTests {
    @Test(arguments: SignalingSamples.all)
    func roundTrip(_ envelope: SignalingEnvelope) throws {
        let text = SignalingCodec.encode(envelope)
        let decoded = try SignalingCodec.decode(text)
        #expect(decoded == envelope)
        #expect(SignalingCodec.encode(decoded) == text)
        #expect(try SignalingCodec.decode(SignalingCodec.encodeUTF8(envelope)) == envelope)
    }

    @Test func samplesCoverEveryType() {
        let covered = Set(SignalingSamples.all.map(\.message.type))
        #expect(covered == Set(SignalingMessageType.allCases))
    }

    @Test func encodesCompactJSONInStableOrder() {
        let invite = SignalingEnvelope(id: "4", message: .invite(Invite(callId: "c1", to: "bob", params: ["z": "1", "a": "2"], sdp: "v=0\r\n")))
        #expect(SignalingCodec.encode(invite) == #"{"type":"invite","id":"4","callId":"c1","to":"bob","params":{"a":"2","z":"1"},"sdp":"v=0\r\n"}"#)
        #expect(SignalingCodec.encode(SignalingEnvelope(ref: "p", message: .pong)) == #"{"type":"pong","ref":"p"}"#)
        let hold = SignalingEnvelope(.hold(Hold(callSid: "CA1", hold: false)))
        #expect(SignalingCodec.encode(hold) == #"{"type":"hold","callSid":"CA1","hold":false}"#)
        let welcome = SignalingEnvelope(ref: "1", message: .welcome(Welcome(session: "SS1", identity: "alice")))
        #expect(SignalingCodec.encode(welcome) == #"{"type":"welcome","ref":"1","v":1,"session":"SS1","identity":"alice","resumeWindow":30,"heartbeat":20}"#)
    }

    @Test func ignoresUnknownMembersAndNulls() throws {
        let text = #"{"future":{"deep":[1,{"x":null}]},"type":"hangup","callSid":"CA1","code":null,"reason":null,"id":"9","extra":true}"#
        let decoded = try SignalingCodec.decode(text)
        #expect(decoded == SignalingEnvelope(id: "9", message: .hangup(Hangup(callSid: "CA1"))))
    }

    @Test func rejectReasonDefaultsToRejected() throws {
        let decoded = try SignalingCodec.decode(#"{"type":"reject","callSid":"CA1"}"#)
        #expect(decoded.message == .reject(Reject(callSid: "CA1", reason: .rejected)))
    }

    @Test func paramsAtTheLimitDecode() throws {
        let params = Dictionary(uniqueKeysWithValues: (0..<SignalingLimits.maxParams).map { ("k\($0)", "v\($0)") })
        let envelope = SignalingEnvelope(.invite(Invite(callId: "c", params: params, sdp: "v=0")))
        #expect(try SignalingCodec.decode(SignalingCodec.encode(envelope)) == envelope)
    }

    @Test func bodyAndSDPAtTheLimitDecode() throws {
        let body = String(repeating: "é", count: SignalingLimits.maxBodyBytes / 2)
        let message = SignalingEnvelope(.message(CallMessage(callSid: "CA1", messageId: "m", body: body)))
        #expect(try SignalingCodec.decode(SignalingCodec.encode(message)) == message)
        let sdp = String(repeating: "a", count: SignalingLimits.maxSDPBytes)
        let answer = SignalingEnvelope(.answer(Answer(callSid: "CA1", sdp: sdp)))
        #expect(try SignalingCodec.decode(SignalingCodec.encode(answer)) == answer)
    }

    @Test func helloNeverShowsItsToken() {
        let hello = Hello(token: "secret.jwt.value", resume: "SS1")
        let envelope = SignalingEnvelope(id: "1", message: .hello(hello))
        for text in [String(describing: hello), String(reflecting: hello), String(describing: envelope), String(reflecting: envelope)] {
            #expect(!text.contains("secret"))
        }
        #expect(String(describing: hello).contains("16 bytes"))
    }

    @Test func sendersMatchTheDocumentedDirections() {
        #expect(SignalingMessage.hello(Hello(token: "t")).sender == .client)
        #expect(SignalingMessage.hold(Hold(callSid: "CA1", hold: true)).sender == .client)
        #expect(SignalingMessage.hangup(Hangup(callSid: "CA1")).sender == .either)
        #expect(SignalingMessage.ping.sender == .either)
        #expect(SignalingMessage.incoming(Incoming(callSid: "CA1", from: "a", to: "b")).sender == .server)
        #expect(SignalingMessageType.allCases.filter { $0.sender == .server && !$0.rawValue.hasPrefix("room.") }.count == 12)
        #expect(SignalingMessageType.allCases.filter { $0.sender == .server && $0.rawValue.hasPrefix("room.") }.count == 19)
        #expect(SignalingMessageType.allCases.filter { $0.sender == .client && $0.rawValue.hasPrefix("room.") }.count == 6)
    }

    @Test func refusesMessagesFromTheWrongSide() throws {
        let welcome = #"{"type":"welcome","id":"w","v":1,"session":"S","identity":"a","resumeWindow":30,"heartbeat":20}"#
        let error = try #require(throws: SignalingError.self) { try SignalingCodec.decode(welcome, sentBy: .client) }
        #expect(error == SignalingError(.malformedRequest, "welcome is not sent by the client", id: "w"))
        #expect(try SignalingCodec.decode(welcome, sentBy: .server).message.type == .welcome)
        #expect(try SignalingCodec.decode(#"{"type":"ping"}"#, sentBy: .server).message == .ping)
        #expect(try SignalingCodec.decode(#"{"type":"hangup","callSid":"CA1"}"#, sentBy: .client).message.type == .hangup)
        #expect(throws: SignalingError.self) { try SignalingCodec.decode(#"{"type":"listen"}"#, sentBy: .server) }
    }

    @Test func negotiatesTheVersion() {
        #expect(SignalingProtocol.negotiate(clientVersion: 1) == 1)
        #expect(SignalingProtocol.negotiate(clientVersion: 5) == 1)
        #expect(SignalingProtocol.negotiate(clientVersion: 0) == nil)
    }

    @Test func errorReplyRefersToTheRequest() throws {
        do {
            _ = try SignalingCodec.decode(#"{"type":"invite","id":"r7","callId":"c"}"#)
            Issue.record("decoded an invite without sdp")
        } catch {
            let reply = SignalingEnvelope(replyingTo: error)
            #expect(reply.ref == "r7")
            #expect(reply.message == .error(SignalingErrorBody(code: 31100, message: "invite: missing field \"sdp\"")))
            #expect(error.parleyError.code == .malformedRequest)
            #expect(SignalingCodec.encode(reply) == #"{"type":"error","ref":"r7","code":31100,"message":"invite: missing field \"sdp\""}"#)
        }
    }
}
