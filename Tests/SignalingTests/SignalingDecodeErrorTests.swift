import ParleyCore
import Testing
import Signaling

@Suite struct SignalingDecodeErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let code: Int
        let id: String?
        var testDescription: String { String(text.prefix(80)) }
        init(_ text: String, _ code: Int, id: String? = nil) {
            self.text = text
            self.code = code
            self.id = id
        }
    }

    static let sid = #""callSid":"CA1""#

    static let malformed: [Case] = [
        // Not a JSON object.
        Case("", 31100),
        Case("{", 31100),
        Case("not json", 31100),
        Case(#"["type","ping"]"#, 31100),
        Case(#""ping""#, 31100),
        Case(#"{"type":"ping"} trailing"#, 31100),
        Case(#"{"type":"ping","type":"pong"}"#, 31100),
        Case(String(repeating: "[", count: 40) + String(repeating: "]", count: 40), 31100),
        // Type problems.
        Case(#"{"id":"1"}"#, 31100, id: "1"),
        Case(#"{"type":7,"id":"2"}"#, 31100, id: "2"),
        Case(#"{"type":"dance","id":"3"}"#, 31100, id: "3"),
        Case(#"{"type":"Ping","id":"3"}"#, 31100, id: "3"),
        Case(#"{"type":"room.publish","id":"4","room":"r"}"#, 31100, id: "4"),
        // Envelope members of the wrong type: the id is unreadable.
        Case(#"{"type":"ping","id":5}"#, 31100),
        Case(#"{"type":"ping","id":"ok","ref":5}"#, 31100, id: "ok"),
        Case(#"{"type":"ping","id":""}"#, 31400),
        // Missing fields.
        Case(#"{"type":"hello","id":"h","v":1}"#, 31100, id: "h"),
        Case(#"{"type":"hello","id":"h","token":"t"}"#, 31100, id: "h"),
        Case(#"{"type":"invite","id":"i","callId":"c"}"#, 31100, id: "i"),
        Case(#"{"type":"invite","id":"i","sdp":"v=0"}"#, 31100, id: "i"),
        Case(#"{"type":"accept","id":"a","callSid":"CA1"}"#, 31100, id: "a"),
        Case(#"{"type":"reject","id":"r"}"#, 31100, id: "r"),
        Case(#"{"type":"cancel","id":"c"}"#, 31100, id: "c"),
        Case(#"{"type":"ringing","callId":"c"}"#, 31100),
        Case(#"{"type":"connected"}"#, 31100),
        Case(#"{"type":"hangup","id":"h"}"#, 31100, id: "h"),
        Case(#"{"type":"hold","id":"h",\#(sid)}"#, 31100, id: "h"),
        Case(#"{"type":"dtmf","id":"d",\#(sid)}"#, 31100, id: "d"),
        Case(#"{"type":"message","id":"m",\#(sid),"messageId":"x","contentType":"a","messageType":"b"}"#, 31100, id: "m"),
        Case(#"{"type":"iceRestart","id":"i",\#(sid)}"#, 31100, id: "i"),
        Case(#"{"type":"welcome","v":1,"session":"S","identity":"a","resumeWindow":30}"#, 31100),
        Case(#"{"type":"callCreated","callSid":"CA1"}"#, 31100),
        Case(#"{"type":"incoming",\#(sid),"from":"a"}"#, 31100),
        Case(#"{"type":"cancelled",\#(sid),"reason":"x"}"#, 31100),
        Case(#"{"type":"messageSent",\#(sid)}"#, 31100),
        Case(#"{"type":"messageFailed",\#(sid),"messageId":"m","code":1}"#, 31100),
        Case(#"{"type":"resumed","session":"S"}"#, 31100),
        Case(#"{"type":"error","code":31100}"#, 31100),
        // Wrong JSON types.
        Case(#"{"type":"hello","id":"h","v":"1","token":"t"}"#, 31100, id: "h"),
        Case(#"{"type":"hello","id":"h","v":1.0,"token":"t"}"#, 31100, id: "h"),
        Case(#"{"type":"hello","id":"h","v":1,"token":["t"]}"#, 31100, id: "h"),
        Case(#"{"type":"hold","id":"h",\#(sid),"hold":"true"}"#, 31100, id: "h"),
        Case(#"{"type":"hold","id":"h","callSid":42,"hold":true}"#, 31100, id: "h"),
        Case(#"{"type":"invite","id":"i","callId":"c","sdp":"v=0","params":[]}"#, 31100, id: "i"),
        Case(#"{"type":"invite","id":"i","callId":"c","sdp":"v=0","params":{"a":1}}"#, 31100, id: "i"),
        Case(#"{"type":"hangup","id":"h",\#(sid),"code":"31486"}"#, 31100, id: "h"),
        Case(#"{"type":"incoming",\#(sid),"from":"a","to":"b","callerInfo":true}"#, 31100),
        Case(#"{"type":"incoming",\#(sid),"from":"a","to":"b","callerInfo":{"isVerified":1}}"#, 31100),
        Case(#"{"type":"resumed","session":"S","calls":"CA1"}"#, 31100),
        Case(#"{"type":"resumed","session":"S","calls":[1]}"#, 31100),
    ]

    static let badValues: [Case] = [
        Case(#"{"type":"hello","id":"h","v":0,"token":"t"}"#, 31400, id: "h"),
        Case(#"{"type":"hello","id":"h","v":1,"token":""}"#, 31400, id: "h"),
        Case(#"{"type":"hello","id":"h","v":1,"token":"a\nb"}"#, 31400, id: "h"),
        Case(#"{"type":"reject","id":"r",\#(sid),"reason":"maybe"}"#, 31400, id: "r"),
        Case(#"{"type":"dtmf","id":"d",\#(sid),"digits":"12x"}"#, 31400, id: "d"),
        Case(#"{"type":"dtmf","id":"d",\#(sid),"digits":""}"#, 31400, id: "d"),
        Case(#"{"type":"hangup","id":"h","callSid":"CA\u0000"}"#, 31400, id: "h"),
        Case(#"{"type":"hangup","id":"h","callSid":"CA\u007f"}"#, 31400, id: "h"),
        Case(#"{"type":"hangup","id":"h","callSid":""}"#, 31400, id: "h"),
        Case(#"{"type":"hangup","id":"h",\#(sid),"reason":"bell\u0007"}"#, 31400, id: "h"),
        Case(#"{"type":"accept","id":"a",\#(sid),"sdp":""}"#, 31400, id: "a"),
        Case(#"{"type":"accept","id":"a",\#(sid),"sdp":"v=0\u001b"}"#, 31400, id: "a"),
        Case(#"{"type":"invite","id":"i","callId":"c","sdp":"v=0","params":{"a\nb":"x"}}"#, 31400, id: "i"),
        Case(#"{"type":"invite","id":"i","callId":"c","sdp":"v=0","to":"bob\u0000"}"#, 31484, id: "i"),
        Case(#"{"type":"welcome","v":1,"session":"S","identity":"a","resumeWindow":30,"heartbeat":0}"#, 31400),
        Case(#"{"type":"ping","id":"\#(String(repeating: "i", count: 257))"}"#, 31400),
    ]

    @Test(arguments: malformed + badValues)
    func refusedWithCodeAndRef(_ c: Case) {
        #expect(throws: SignalingError.self) { try SignalingCodec.decode(c.text) }
        do {
            _ = try SignalingCodec.decode(c.text)
        } catch {
            #expect(error.code.rawValue == c.code, "\(error)")
            #expect(error.id == c.id, "\(error)")
        }
    }

    @Test func oversizeMessageIsRefused() throws {
        let padding = String(repeating: " ", count: SignalingLimits.maxMessageBytes)
        let text = #"{"type":"ping","id":"big"}"# + padding
        #expect(throws: SignalingError(.badRequest, "message is larger than 65536 bytes")) { try SignalingCodec.decode(text) }
        // Exactly at the limit decodes.
        let exact = #"{"type":"ping","id":"ok"}"#
        let atLimit = exact + String(repeating: " ", count: SignalingLimits.maxMessageBytes - exact.utf8.count)
        #expect(try SignalingCodec.decode(atLimit) == SignalingEnvelope(id: "ok", message: .ping))
    }

    @Test func oversizeBodyIsRefused() throws {
        let body = String(repeating: "b", count: SignalingLimits.maxBodyBytes + 1)
        let text = SignalingCodec.encode(SignalingEnvelope(id: "m9", message: .message(CallMessage(callSid: "CA1", messageId: "m", body: body))))
        let error = try #require(throws: SignalingError.self) { try SignalingCodec.decode(text) }
        #expect(error.code == .badRequest)
        #expect(error.id == "m9")
        #expect(error.reason == "message: \"body\" is longer than 10240 bytes")
    }

    @Test func oversizeSDPIsRefused() throws {
        let sdp = String(repeating: "s", count: SignalingLimits.maxSDPBytes + 1)
        let text = SignalingCodec.encode(SignalingEnvelope(id: "o1", message: .invite(Invite(callId: "c", sdp: sdp))))
        let error = try #require(throws: SignalingError.self) { try SignalingCodec.decode(text) }
        #expect(error.code == .badRequest)
        #expect(error.id == "o1")
        #expect(error.reason == "invite: \"sdp\" is longer than 32768 bytes")
    }

    @Test func tooManyParamsAreRefused() throws {
        let params = Dictionary(uniqueKeysWithValues: (0...SignalingLimits.maxParams).map { ("k\($0)", "v") })
        let text = SignalingCodec.encode(SignalingEnvelope(id: "p", message: .invite(Invite(callId: "c", params: params, sdp: "v=0"))))
        let error = try #require(throws: SignalingError.self) { try SignalingCodec.decode(text) }
        #expect(error.code == .badRequest)
        #expect(error.id == "p")
    }

    @Test func tokenNeverAppearsInErrors() throws {
        let text = #"{"type":"hello","id":"h","v":1,"token":"secret\u0001token"}"#
        let error = try #require(throws: SignalingError.self) { try SignalingCodec.decode(text) }
        #expect(error.code == .badRequest)
        #expect(!error.description.contains("secret"))
    }

    @Test func invalidUTF8IsMalformed() throws {
        let bytes: [UInt8] = Array(#"{"type":"hangup","callSid":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        let error = try #require(throws: SignalingError.self) { try SignalingCodec.decode(bytes) }
        #expect(error.code == .malformedRequest)
    }
}
