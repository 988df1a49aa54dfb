import ParleyCore
import Testing
import Signaling

/// The room family: defaults, wire shape, refusals (31100 wrong JSON type or missing, 31400 out
/// of limits, 31426 other `roomV`), and that voice messages are unchanged by it.
@Suite struct RoomCodecTests {
    static let sdp = #""offer":"v=0""#

    static func code(_ text: String) -> Int? {
        do {
            _ = try SignalingCodec.decode(text)
            return nil
        } catch {
            return error.code.rawValue
        }
    }

    static func tracks(_ n: Int) -> String {
        "[" + Array(repeating: #"{"name":"t","kind":"audio"}"#, count: n).joined(separator: ",") + "]"
    }

    @Test func joinDefaults() throws {
        let envelope = try SignalingCodec.decode(#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[{"name":"mic","kind":"audio"}],"future":{"x":1}}"#)
        #expect(envelope.message == .roomJoin(RoomJoin(offer: "v=0", tracks: [RoomTrackInfo(name: "mic", kind: .audio)])))
        guard case .roomJoin(let join) = envelope.message else { return }
        #expect(join.automaticSubscription && join.room == nil && join.tracks[0].priority == .standard && join.tracks[0].enabled)
    }

    @Test func encodesTheDocumentedShape() {
        let join = SignalingEnvelope(id: "j", message: .roomJoin(RoomJoin(offer: "v=0", tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])))
        #expect(SignalingCodec.encode(join) == #"{"type":"room.join","id":"j","roomV":1,"offer":"v=0","tracks":[{"mid":"0","name":"mic","kind":"audio","priority":"standard","enabled":true}],"automaticSubscription":true}"#)
        #expect(SignalingCodec.encode(SignalingEnvelope(.roomDominantSpeaker(RoomDominantSpeaker(participantSid: nil))))
                == #"{"type":"room.dominantSpeaker","participantSid":null}"#)
        #expect(SignalingCodec.encode(SignalingEnvelope(.roomLeave)) == #"{"type":"room.leave"}"#)
    }

    @Test func sendersAreTheDocumentedSides() throws {
        #expect(throws: SignalingError.self) { try SignalingCodec.decode(#"{"type":"room.joined"}"#, sentBy: .client) }
        #expect(throws: SignalingError.self) { try SignalingCodec.decode(#"{"type":"room.leave"}"#, sentBy: .server) }
        #expect(try SignalingCodec.decode(#"{"type":"room.leave"}"#, sentBy: .client).message == .roomLeave)
    }

    static let refusals: [(String, Int)] = [
        // roomV: missing or wrong JSON type 31100, another version 31426 (like hello's version).
        (#"{"type":"room.join","offer":"v=0","tracks":[]}"#, 31100),
        (#"{"type":"room.join","roomV":"1","offer":"v=0","tracks":[]}"#, 31100),
        (#"{"type":"room.join","roomV":2,"offer":"v=0","tracks":[]}"#, 31426),
        (#"{"type":"room.join","roomV":0,"offer":"v=0","tracks":[]}"#, 31426),
        (#"{"type":"room.joined","roomV":2}"#, 31426),
        // Wrong JSON types.
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":{}}"#, 31100),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":["mic"]}"#, 31100),
        (#"{"type":"room.join","roomV":1,"offer":7,"tracks":[]}"#, 31100),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[],"automaticSubscription":"yes"}"#, 31100),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[],"reconnect":"PA1"}"#, 31100),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[],"reconnect":{}}"#, 31100),
        (#"{"type":"room.trackEnabled","trackSid":"MT1","enabled":1}"#, 31100),
        (#"{"type":"room.subscribe"}"#, 31100),
        (#"{"type":"room.recording","isRecording":null}"#, 31100),
        (#"{"type":"room.renegotiate","audio":1.5,"video":0}"#, 31100),
        (#"{"type":"room.trackPublished","participantSid":"PA1","track":{"name":"t","kind":"audio"}}"#, 31100),
        (#"{"type":"room.dominantSpeaker","participantSid":5}"#, 31100),
        (#"{"type":"room.publish"}"#, 31100),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[],"bandwidthProfile":{"video":{"maxSubscriptionBitrate":"1M"}}}"#, 31100),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[],"bandwidthProfile":{"video":{"renderDimensions":{"low":{"width":1}}}}}"#, 31100),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[],"bandwidthProfile":{"video":"grid"}}"#, 31100),
        // Bad values.
        (#"{"type":"room.offer","offer":"v=0","tracks":[{"name":"t","kind":"screen"}]}"#, 31400),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[],"bandwidthProfile":{"video":{"mode":"theatre"}}}"#, 31400),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[],"bandwidthProfile":{"video":{"maxSubscriptionBitrate":999}}}"#, 31400),
        (#"{"type":"room.join","roomV":1,"offer":"v=0","tracks":[],"bandwidthProfile":{"video":{"renderDimensions":{"low":{"width":0,"height":9}}}}}"#, 31400),
        (#"{"type":"room.offer","offer":"v=0","tracks":[{"name":"t","kind":"audio","priority":"urgent"}]}"#, 31400),
        (#"{"type":"room.offer","offer":"v=0","tracks":[{"name":"","kind":"audio"}]}"#, 31400),
        (#"{"type":"room.offer","offer":"","tracks":[]}"#, 31400),
        (#"{"type":"room.networkQuality","levels":[{"participantSid":"PA1","level":6}]}"#, 31400),
        (#"{"type":"room.networkQuality","levels":[{"participantSid":"PA1","level":-1}]}"#, 31400),
        (#"{"type":"room.renegotiate","audio":65,"video":0}"#, 31400),
        (#"{"type":"room.participantConnected","participant":{"sid":"PA1","identity":"a","state":"gone","tracks":[]}}"#, 31400),
        (#"{"type":"room.subscribed","trackSid":"MT1","mid":"2","participantSid":"PA\u00011"}"#, 31400),
        // Too long and too many.
        (#"{"type":"room.subscribe","trackSid":""# + String(repeating: "M", count: 257) + #""}"#, 31400),
        (#"{"type":"room.disconnected","code":1,"message":""# + String(repeating: "m", count: 2049) + #""}"#, 31400),
        (#"{"type":"room.offer","offer":"v=0","tracks":"# + tracks(65) + "}", 31400),
    ]

    @Test(arguments: refusals)
    func refuses(_ text: String, _ code: Int) {
        #expect(Self.code(text) == code, "\(text.prefix(80))")
    }

    @Test func listsAtTheirLimitsDecode() throws {
        #expect(Self.code(#"{"type":"room.offer","offer":"v=0","tracks":"# + Self.tracks(64) + "}") == nil)
        let level = #"{"participantSid":"PA1","level":3}"#
        let levels = Array(repeating: level, count: 64).joined(separator: ",")
        #expect(Self.code(#"{"type":"room.networkQuality","levels":["# + levels + "]}") == nil)
        #expect(Self.code(#"{"type":"room.networkQuality","levels":["# + levels + "," + level + "]}") == 31400)
        let p = #"{"sid":"PA1","identity":"a","state":"connected","tracks":[]}"#
        let head = #"{"type":"room.joined","roomV":1,"room":{"sid":"RM1","name":"r","type":"go","isRecording":false},"participant":"# + p
        let tail = #","answer":"v=0","published":[],"subscriptions":[]}"#
        #expect(Self.code(head + #","participants":["# + Array(repeating: p, count: 50).joined(separator: ",") + "]" + tail) == nil)
        #expect(Self.code(head + #","participants":["# + Array(repeating: p, count: 51).joined(separator: ",") + "]" + tail) == 31400)
    }

    @Test func voiceMessagesAreUnchanged() throws {
        for envelope in SignalingSamples.voice {
            #expect(!envelope.message.type.rawValue.hasPrefix("room."))
        }
        let invite = #"{"type":"invite","id":"4","callId":"c","to":"bob","sdp":"v=0"}"#
        #expect(SignalingCodec.encode(try SignalingCodec.decode(invite)) == invite)
        let welcome = #"{"type":"welcome","v":1,"session":"S","identity":"a","resumeWindow":30,"heartbeat":20}"#
        #expect(SignalingCodec.encode(try SignalingCodec.decode(welcome)) == welcome)
    }
}
