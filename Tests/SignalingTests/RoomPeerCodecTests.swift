import ParleyCore
import Testing
import Signaling

/// Peer-to-peer rooms on the wire: `room.join` without an offer, `room.joined` without an answer
/// and with `iceServers`, the relayed `room.peerOffer` / `room.peerAnswer` / `room.peerCandidate`
/// (either side sends them), their shapes, defaults and limits.
@Suite struct RoomPeerCodecTests {
    static let alice = "PA0000000000000000000000000000000a"

    static let samples: [SignalingEnvelope] = [
        SignalingEnvelope(id: "j1", message: .roomJoin(RoomJoin(room: "huddle", offer: nil, tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)]))),
        SignalingEnvelope(ref: "j1", message: .roomJoined(RoomJoined(
            room: RoomInfo(sid: "RM1", name: "huddle", type: .peerToPeer), participant: RoomParticipantInfo(sid: alice, identity: "alice"),
            answer: nil, iceServers: [RoomICEServer(urls: ["stun:stun.example.com:3478"]),
                                      RoomICEServer(urls: ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:5349"],
                                                    username: "1767225600:alice", credential: "c2VjcmV0")]))),
        SignalingEnvelope(id: "p1", message: .roomPeerOffer(RoomPeerDescription(participantSid: alice, sdp: "v=0",
                                                                                published: [RoomPublishedTrack(mid: "0", trackSid: "MT1")]))),
        SignalingEnvelope(.roomPeerOffer(RoomPeerDescription(participantSid: alice, sdp: "v=0"))),
        SignalingEnvelope(.roomPeerAnswer(RoomPeerDescription(participantSid: alice, sdp: "v=0",
                                                              published: [RoomPublishedTrack(mid: "1", trackSid: "MT2")]))),
        SignalingEnvelope(.roomPeerCandidate(RoomPeerCandidate(participantSid: alice,
            candidate: "candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host generation 0", sdpMid: "0", sdpMLineIndex: 0,
            usernameFragment: "abcd"))),
        SignalingEnvelope(.roomPeerCandidate(RoomPeerCandidate(participantSid: alice, candidate: ""))),
    ]

    @Test(arguments: samples) func roundTrips(_ envelope: SignalingEnvelope) throws {
        #expect(try SignalingCodec.decode(SignalingCodec.encode(envelope)) == envelope)
    }

    @Test func relayedMessagesGoBothWaysTheRestKeepTheirSide() throws {
        let offer = #"{"type":"room.peerOffer","participantSid":"PA1","sdp":"v=0"}"#
        #expect(try SignalingCodec.decode(offer, sentBy: .client).message == .roomPeerOffer(RoomPeerDescription(participantSid: "PA1", sdp: "v=0")))
        #expect(try SignalingCodec.decode(offer, sentBy: .server).message.type == .roomPeerOffer)
        #expect(SignalingMessageType.roomPeerCandidate.sender == .either && SignalingMessageType.roomJoined.sender == .server)
    }

    @Test func wireShapes() {
        #expect(SignalingCodec.encode(SignalingEnvelope(.roomPeerOffer(RoomPeerDescription(participantSid: "PA1", sdp: "v=0"))))
                == #"{"type":"room.peerOffer","participantSid":"PA1","sdp":"v=0"}"#)
        #expect(SignalingCodec.encode(SignalingEnvelope(.roomPeerCandidate(RoomPeerCandidate(participantSid: "PA1", candidate: "", sdpMLineIndex: 0))))
                == #"{"type":"room.peerCandidate","participantSid":"PA1","candidate":"","sdpMLineIndex":0}"#)
        #expect(SignalingCodec.encode(SignalingEnvelope(.roomJoin(RoomJoin(offer: nil))))
                == #"{"type":"room.join","roomV":1,"tracks":[],"automaticSubscription":true}"#)
        let joined = RoomJoined(room: RoomInfo(sid: "RM1", name: "r", type: .go), participant: RoomParticipantInfo(sid: "PA1", identity: "a"),
                                answer: nil, iceServers: [RoomICEServer(urls: ["stun:s"])])
        #expect(SignalingCodec.encode(SignalingEnvelope(.roomJoined(joined))).hasSuffix(
            #""published":[],"subscriptions":[],"iceServers":[{"urls":["stun:s"]}]}"#))
    }

    static func candidate(_ fields: String) -> String { #"{"type":"room.peerCandidate","participantSid":"PA1","# + fields + "}" }

    static let refusals: [(String, Int)] = [
        (#"{"type":"room.peerOffer","participantSid":"PA1"}"#, 31100),
        (#"{"type":"room.peerOffer","sdp":"v=0"}"#, 31100),
        (#"{"type":"room.peerAnswer","participantSid":"PA1","sdp":""}"#, 31400),
        (#"{"type":"room.peerAnswer","participantSid":"PA1","sdp":""# + String(repeating: "a", count: 32 * 1024 + 1) + #""}"#, 31400),
        (#"{"type":"room.peerOffer","participantSid":"PA1","sdp":"v=0","published":{}}"#, 31100),
        (#"{"type":"room.peerOffer","participantSid":"PA1","sdp":"v=0","published":[{"mid":"0"}]}"#, 31100),
        (candidate(#""sdpMid":"0""#), 31100),
        (candidate(#""candidate":7"#), 31100),
        (candidate(#""candidate":"c","sdpMLineIndex":"0""#), 31100),
        (candidate(#""candidate":"c","sdpMLineIndex":256"#), 31400),
        (candidate(#""candidate":"c","sdpMLineIndex":-1"#), 31400),
        (candidate(#""candidate":"a\nb""#), 31400),
        (candidate(#""candidate":""# + String(repeating: "c", count: 1025) + #"""#), 31400),
        (#"{"type":"room.joined","roomV":1,"room":{"sid":"RM1","name":"r","type":"go","isRecording":false},"participant":{"sid":"PA1","identity":"a","state":"connected","tracks":[]},"participants":[],"published":[],"subscriptions":[],"iceServers":[{"urls":[]}]}"#, 31400),
        (#"{"type":"room.joined","roomV":1,"room":{"sid":"RM1","name":"r","type":"go","isRecording":false},"participant":{"sid":"PA1","identity":"a","state":"connected","tracks":[]},"participants":[],"published":[],"subscriptions":[],"iceServers":[{"urls":"stun:s"}]}"#, 31100),
        (#"{"type":"room.join","roomV":1,"offer":"","tracks":[]}"#, 31400),
    ]

    @Test(arguments: refusals) func refuses(_ text: String, _ code: Int) {
        #expect(RoomCodecTests.code(text) == code, "\(text.prefix(100))")
    }

    @Test func candidatesAndServersAtTheirLimitsDecode() {
        #expect(RoomCodecTests.code(Self.candidate(#""candidate":""# + String(repeating: "c", count: 1024) + #"","sdpMLineIndex":255"#)) == nil)
        let servers = Array(repeating: #"{"urls":["# + Array(repeating: #""turn:t""#, count: 8).joined(separator: ",") + "]}", count: 8)
        let joined = #"{"type":"room.joined","roomV":1,"room":{"sid":"RM1","name":"r","type":"go","isRecording":false},"participant":{"sid":"PA1","identity":"a","state":"connected","tracks":[]},"participants":[],"published":[],"subscriptions":[],"iceServers":["#
        #expect(RoomCodecTests.code(joined + servers.joined(separator: ",") + "]}") == nil)
        #expect(RoomCodecTests.code(joined + (servers + [#"{"urls":["stun:s"]}"#]).joined(separator: ",") + "]}") == 31400)
    }
}
