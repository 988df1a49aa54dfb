import AccessToken
import Foundation
import HTTPWire
import ICE
import JSONWire
import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// Peer-to-peer rooms through a real `PlatformServer` (docs/signaling.md §12, "Peer-to-peer
/// rooms"): a `go` room made over REST, two clients join without an offer and get `iceServers`
/// with TURN REST credentials made from `--turn-secret-file`'s secret; offers, answers and
/// candidates are relayed naming the sender; a third participant is refused with 53105, WHIP with
/// 53114; `Tokens.json` hands out the same servers. And the flags themselves.
@Suite struct RoomPeerSignalingTests {
    static let secret = "north-secret"
    static let whipOffer = [
        "v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE 0", "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0",
        "a=rtpmap:111 opus/48000/2", "a=mid:0", "a=sendonly", "a=rtcp-mux", "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
        "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"), "a=setup:actpass", "a=ssrc:11 cname:x", "",
    ].joined(separator: "\r\n")
    static let urls = ["stun:127.0.0.1:3478", "turn:127.0.0.1:3478?transport=udp"]

    private func withServer(_ body: (RunningServer) async throws -> Void) async throws {
        let s = try RunningServer.start {
            $0.mediaPort = 0
            $0.iceServerURLs = Self.urls
            $0.turnSecret = Self.secret
        }
        do { try await body(s) } catch {
            await s.stop()
            throw error
        }
        await s.stop()
    }

    private func client(_ s: RunningServer, _ identity: String) async throws -> SignalingTestClient {
        try await SignalingTestClient(baseURL: s.base, token: try s.token(identity: identity, grants: [.video(VideoGrant(room: nil))]))
    }

    private func post(_ s: RunningServer, _ path: String, _ form: String) async throws -> (status: Int, body: JSONObject) {
        let creds = s.server.defaultCredentials
        var headers = RESTFixture.basic(creds.account.sid, creds.account.authToken)
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        let response = try await s.client.send(HTTPRequest(method: "POST", target: path, headers: headers, body: Array(form.utf8)),
                                               to: s.base + path)
        return (response.status, (try? JSONValue.parse(response.body, maxDepth: 8))?.objectValue ?? [:])
    }

    private func message(_ client: SignalingTestClient) async throws -> SignalingEnvelope {
        guard let envelope = try await client.next() else { throw TestFailure("socket closed") }
        return envelope
    }

    /// base64(HMAC-SHA1(secret, username)): what coturn's use-auth-secret expects.
    static func password(_ username: String) -> String {
        Data(HMAC.sha1(key: Array(secret.utf8), message: Array(username.utf8))).base64EncodedString()
    }

    static func expectTURNCredentials(_ username: String?, _ credential: String?, user: String) {
        let parts = username?.split(separator: ":", maxSplits: 1) ?? []
        let expiry = parts.first.flatMap { Int64($0) } ?? 0
        let now = Int64(Date().timeIntervalSince1970)
        #expect(parts.count == 2 && parts[1] == user && expiry > now && expiry <= now + 86_400, "username \(username ?? "-")")
        #expect(credential == username.map(password), "credential of \(username ?? "-")")
    }

    @Test func twoClientsJoinAGoRoomGetTURNCredentialsAndRelayTheirNegotiation() async throws {
        try await withServer { s in
            let created = try await post(s, "/v1/Rooms", "UniqueName=pair&Type=go")
            #expect(created.status == 201 && created.body["type"]?.stringValue == "go"
                    && created.body["max_participants"] == .integer(2), "\(created)")
            let alice = try await client(s, "alice")
            try await alice.send(.roomJoin(RoomJoin(room: "pair", offer: nil, tracks: [RoomTrackInfo(name: "mic", kind: .audio)])), id: "j1")
            let first = try await message(alice)
            guard case .roomJoined(let a) = first.message else { throw TestFailure("expected room.joined: \(first)") }
            #expect(first.ref == "j1" && a.answer == nil && a.room.type == .go && a.participants.isEmpty)
            #expect(a.iceServers.map(\.urls) == [[Self.urls[0]], [Self.urls[1]]] && a.iceServers[0].username == nil)
            Self.expectTURNCredentials(a.iceServers[1].username, a.iceServers[1].credential, user: "alice")

            // bob joins with an offer for the SFU he does not know is not there: it is ignored.
            let bob = try await client(s, "bob")
            try await bob.send(.roomJoin(RoomJoin(room: "pair", offer: "v=0 (ignored)", tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])), id: "j2")
            guard case .roomJoined(let b) = try await message(bob).message else { throw TestFailure("bob did not join") }
            #expect(b.answer == nil && b.participants.map(\.identity) == ["alice"])
            Self.expectTURNCredentials(b.iceServers.last?.username, b.iceServers.last?.credential, user: "bob")
            let (aSid, bSid) = (a.participant.sid, b.participant.sid)
            #expect(try await message(alice).message == .roomParticipantConnected(RoomParticipantConnected(
                participant: RoomParticipantInfo(sid: bSid, identity: "bob"))))
            #expect(try await message(alice).message.type == .roomTrackPublished)

            // bob (the newer) offers, alice answers, candidates cross: each gets them naming the other.
            try await bob.send(.roomPeerOffer(RoomPeerDescription(participantSid: aSid, sdp: "v=0 offer",
                                                                  published: [RoomPublishedTrack(mid: "0", trackSid: b.participant.tracks[0].sid ?? "")])), id: "p1")
            #expect(try await message(alice).message == .roomPeerOffer(RoomPeerDescription(
                participantSid: bSid, sdp: "v=0 offer", published: [RoomPublishedTrack(mid: "0", trackSid: b.participant.tracks[0].sid ?? "")])))
            try await alice.send(.roomPeerAnswer(RoomPeerDescription(participantSid: bSid, sdp: "v=0 answer")), id: "p2")
            try await alice.send(.roomPeerCandidate(RoomPeerCandidate(participantSid: bSid, candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host",
                                                                      sdpMid: "0", sdpMLineIndex: 0)))
            #expect(try await message(bob).message == .roomPeerAnswer(RoomPeerDescription(participantSid: aSid, sdp: "v=0 answer")))
            #expect(try await message(bob).message == .roomPeerCandidate(RoomPeerCandidate(
                participantSid: aSid, candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host", sdpMid: "0", sdpMLineIndex: 0)))

            // Naming nobody in the room: 53204, with the request's ref.
            try await bob.send(.roomPeerCandidate(RoomPeerCandidate(participantSid: "PA0000000000000000000000000000dead", candidate: "")), id: "p3")
            let refused = try await message(bob)
            guard case .error(let error) = refused.message else { throw TestFailure("expected error: \(refused)") }
            #expect(error.code == 53204 && refused.ref == "p3")

            // A third participant is one too many for a go room: 53105 (Twilio's), the connection stays.
            let carol = try await client(s, "carol")
            try await carol.send(.roomJoin(RoomJoin(room: "pair", offer: nil)), id: "j3")
            let full = try await message(carol)
            guard case .error(let tooMany) = full.message else { throw TestFailure("expected error: \(full)") }
            #expect(tooMany.code == 53105 && full.ref == "j3")

            // WHIP needs the server's media: a peer-to-peer room refuses it (53114).
            var headers: HTTPHeaders = ["Content-Type": "application/sdp"]
            headers.set("Authorization", "Bearer \(try s.token(identity: "obs", grants: [.video(VideoGrant(room: nil))]))")
            let whip = try await s.client.send(HTTPRequest(method: "POST", target: "/v1/rooms/pair/whip", headers: headers,
                                                           body: Array(Self.whipOffer.utf8)), to: s.base + "/v1/rooms/pair/whip")
            #expect(whip.status == 400 && errorCode(whip) == 53114, "WHIP into a go room: \(whip.status) \(String(decoding: whip.body, as: UTF8.self))")
            await alice.close()
            await bob.close()
            await carol.close()
        }
    }

    @Test func tokensHandsOutTheServersWithTURNCredentialsForTheAccount() async throws {
        try await withServer { s in
            let account = s.server.defaultCredentials.account.sid
            let token = try await post(s, "/2010-04-01/Accounts/\(account)/Tokens.json", "Ttl=600")
            #expect(token.status == 201 && token.body["account_sid"]?.stringValue == account && token.body["ttl"]?.stringValue == "600")
            guard case .array(let servers)? = token.body["ice_servers"] else { throw TestFailure("no ice_servers: \(token)") }
            let entries = servers.compactMap(\.objectValue)
            #expect(entries.map { $0["urls"]?.stringValue } == Self.urls && entries.map { $0["url"]?.stringValue } == Self.urls)
            #expect(entries[0]["username"] == nil && entries[1]["username"]?.stringValue == token.body["username"]?.stringValue)
            Self.expectTURNCredentials(token.body["username"]?.stringValue, token.body["password"]?.stringValue, user: account)
            let expiry = Int64(token.body["username"]?.stringValue?.split(separator: ":").first ?? "") ?? 0
            #expect(expiry <= Int64(Date().timeIntervalSince1970) + 600)
            #expect(try await post(s, "/2010-04-01/Accounts/\(account)/Tokens.json", "Ttl=0").status == 400)
        }
    }

    @Test func traversalFlags() throws {
        let config = try ServerConfiguration.parse(["--ice-server", "stun:stun.example.com:3478", "--ice-server", "turns:t.example.com:5349",
                                                    "--turn-secret-file", "/run/secret", "--turn-ttl", "600"])
        #expect(config.iceServerURLs == ["stun:stun.example.com:3478", "turns:t.example.com:5349"]
                && config.turnSecretFile == "/run/secret" && config.turnTTL == 600)
        #expect(try ServerConfiguration.parse(["--ice-server", "stun:s"]).iceServerURLs == ["stun:s"], "STUN needs no secret")
        for bad in [["--ice-server", "turn:t"], ["--ice-server", "http://t"], ["--ice-server", "turn:"], ["--ice-server", "stun:a b"],
                    ["--turn-ttl", "59"], ["--turn-ttl", "86401"], ["--ice-server", "stun:" + String(repeating: "a", count: 260)]] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration.parse(bad) }
        }
        let nine = (0..<9).flatMap { ["--ice-server", "stun:s\($0)"] }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.parse(nine) }
        // The secret file: missing or empty stops the start; its first line is the secret.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-turn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var turn = try ServerConfiguration.parse(["--ice-server", "turn:t:3478", "--turn-secret-file", dir.path + "/missing"])
        #expect(throws: ConfigurationError.self) { try turn.iceServerIssuer() }
        try "\n".write(toFile: dir.path + "/empty", atomically: true, encoding: .utf8)
        turn.turnSecretFile = dir.path + "/empty"
        #expect(throws: ConfigurationError.self) { try turn.iceServerIssuer() }
        try "  \(Self.secret)  \nignored\n".write(toFile: dir.path + "/secret", atomically: true, encoding: .utf8)
        turn.turnSecretFile = dir.path + "/secret"
        let issued = try #require(try turn.iceServerIssuer()).credentials(user: "a", now: 100)
        #expect(issued.username == "86500:a" && issued.password == Self.password("86500:a"))
    }
}
