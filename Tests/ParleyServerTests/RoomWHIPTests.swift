import AccessToken
import Foundation
import HTTPWire
import JSONWire
import ParleyNet
import ParleyStore
import PlatformCore
@testable import ParleyServer
import Signaling
import Testing

/// WHIP and WHEP into rooms (`/v1/rooms/{room}/whip|whep`) on an in-process server with the real
/// media plane: the refusals (token, grant, content type, offers, unknown resources), the CORS
/// preflight, a 201 with an answer and a resource URL that DELETE ends, and the REST API seeing
/// the participants; then the pure parts, an offer's tracks and a viewer's choice of tracks.
@Suite struct RoomWHIPTests {
    private static let publishOffer = [
        "v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=rtpmap:111 opus/48000/2",
        "a=mid:0", "a=sendonly", "a=msid:s mic-1", "a=rtcp-mux", "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
        "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"), "a=setup:actpass",
        "a=ssrc:11 cname:x",
        "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 0.0.0.0", "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack pli",
        "a=mid:1", "a=sendonly", "a=rtcp-mux", "a=ssrc:22 cname:x", "",
    ].joined(separator: "\r\n")

    /// The same transport with both sections receive-only (a WHEP viewer's offer).
    private static let viewOffer = publishOffer.replacingOccurrences(of: "a=sendonly", with: "a=recvonly")
        .replacingOccurrences(of: "a=msid:s mic-1\r\n", with: "").replacingOccurrences(of: "a=ssrc:11 cname:x\r\n", with: "")
        .replacingOccurrences(of: "a=ssrc:22 cname:x\r\n", with: "")

    private func send(_ s: RunningServer, _ method: String, _ path: String, token: String? = nil,
                      type: String? = "application/sdp", body: String = "", extra: HTTPHeaders = [:]) async throws -> HTTPResponse {
        var headers = extra
        if let token { headers.set("Authorization", "Bearer \(token)") }
        if let type { headers.set("Content-Type", type) }
        return try await s.client.send(HTTPRequest(method: method, target: path, headers: headers, body: Array(body.utf8)),
                                       to: s.base + path)
    }

    /// The objects of the list `key` of a JSON body.
    private func items(_ response: HTTPResponse, _ key: String) -> [JSONObject] {
        guard case .array(let list)? = (try? JSONValue.parse(response.body, maxDepth: 8))?.objectValue?[key] else { return [] }
        return list.compactMap(\.objectValue)
    }

    private func video(_ s: RunningServer, _ identity: String, room: String? = "stage") throws -> String {
        try s.token(identity: identity, grants: [.video(VideoGrant(room: room))])
    }

    /// Runs `body` on a started server and stops it, also when `body` throws.
    private func withServer(mediaSessionsPerIdentity: Int? = nil, _ body: (RunningServer) async throws -> Void) async throws {
        let s = try RunningServer.start { config in
            config.mediaPort = 0
            if let mediaSessionsPerIdentity { config.quotas.perIdentity.mediaSessions = mediaSessionsPerIdentity }
        }
        do { try await body(s) } catch {
            await s.stop()
            throw error
        }
        await s.stop()
    }

    @Test func refusalsAndPreflight() async throws {
        try await withServer { s in
            let preflight = try await send(s, "OPTIONS", "/v1/rooms/stage/whip", type: nil, extra: ["Origin": "https://studio.example"])
            #expect(preflight.status == 204)
            #expect(preflight.headers["Access-Control-Allow-Origin"] == "https://studio.example")
            #expect(preflight.headers["Access-Control-Allow-Methods"] == "POST, DELETE, PATCH, OPTIONS")
            #expect(preflight.headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type")
            #expect(preflight.headers["Access-Control-Expose-Headers"] == "Location")
            let resource = try await send(s, "OPTIONS", "/v1/rooms/stage/whep/PA00000000000000000000000000000001", type: nil)
            #expect(resource.status == 204 && resource.headers["Allow"] == "DELETE, OPTIONS")
            #expect(resource.headers["Access-Control-Allow-Origin"] == "*")

            let anonymous = try await send(s, "POST", "/v1/rooms/stage/whip", body: Self.publishOffer)
            #expect(anonymous.status == 401 && errorCode(anonymous) == 20101)
            let forged = try await send(s, "POST", "/v1/rooms/stage/whep", token: "x.y.z", body: Self.viewOffer)
            #expect(forged.status == 401 && errorCode(forged) == 20101)
            let text = try await send(s, "POST", "/v1/rooms/stage/whip", token: try video(s, "cam"), type: "text/plain",
                                      body: Self.publishOffer)
            #expect(text.status == 415)
            let voiceOnly = try await send(s, "POST", "/v1/rooms/stage/whip", token: try s.token(identity: "cam"), body: Self.publishOffer)
            #expect(voiceOnly.status == 403 && errorCode(voiceOnly) == 20106)
            let otherRoom = try await send(s, "POST", "/v1/rooms/stage/whip", token: try video(s, "cam", room: "backstage"),
                                           body: Self.publishOffer)
            #expect(otherRoom.status == 403 && errorCode(otherRoom) == 20106)
            // Parley's finer grants: WHIP publishes, WHEP subscribes.
            let noPublish = try await send(s, "POST", "/v1/rooms/stage/whip",
                                           token: try s.token(identity: "cam", grants: [.video(VideoGrant(room: "stage", canPublish: false))]),
                                           body: Self.publishOffer)
            #expect(noPublish.status == 403 && errorCode(noPublish) == 20106)
            let noSubscribe = try await send(s, "POST", "/v1/rooms/stage/whep",
                                             token: try s.token(identity: "viewer", grants: [.video(VideoGrant(room: "stage", canSubscribe: false))]),
                                             body: Self.viewOffer)
            #expect(noSubscribe.status == 403 && errorCode(noSubscribe) == 20106)
            let garbage = try await send(s, "POST", "/v1/rooms/stage/whip", token: try video(s, "cam"), body: "hello")
            #expect(garbage.status == 400 && errorCode(garbage) == 53403)
            let noSending = try await send(s, "POST", "/v1/rooms/stage/whip", token: try video(s, "cam"), body: Self.viewOffer)
            #expect(noSending.status == 400 && errorCode(noSending) == 53403)
            let noReceiving = try await send(s, "POST", "/v1/rooms/stage/whep", token: try video(s, "viewer"), body: Self.publishOffer)
            #expect(noReceiving.status == 400 && errorCode(noReceiving) == 53403)
            let noCodec = try await send(s, "POST", "/v1/rooms/stage/whip", token: try video(s, "cam"),
                                         body: Self.publishOffer.replacingOccurrences(of: "opus/48000/2", with: "iLBC/8000")
                                            .replacingOccurrences(of: "VP8/90000", with: "AV1/90000"))
            #expect(noCodec.status == 400 && errorCode(noCodec) == 53404)
            let unknownRoom = try await send(s, "POST", "/v1/rooms/RM00000000000000000000000000000001/whip",
                                             token: try video(s, "cam", room: nil), body: Self.publishOffer)
            #expect(unknownRoom.status == 404 && errorCode(unknownRoom) == 53106)

            let unknown = try await send(s, "DELETE", "/v1/rooms/stage/whip/PA00000000000000000000000000000001", token: try video(s, "cam"))
            #expect(unknown.status == 404)
            let patch = try await send(s, "PATCH", "/v1/rooms/stage/whip/PA00000000000000000000000000000001",
                                       type: "application/trickle-ice-sdpfrag")
            #expect(patch.status == 405 && patch.headers["Allow"] == "DELETE, OPTIONS")
            let get = try await send(s, "GET", "/v1/rooms/stage/whip", type: nil)
            #expect(get.status == 405)
            for path in ["/v1/rooms/stage", "/v1/rooms/stage/whop", "/v1/rooms//whip", "/v1/rooms/stage/whip/"] {
                #expect(try await send(s, "POST", path, token: try video(s, "cam"), body: Self.publishOffer).status == 404, "\(path)")
            }
        }
    }

    @Test func publishViewListAndDelete() async throws {
        try await withServer { s in
            let whip = try await send(s, "POST", "/v1/rooms/stage/whip", token: try video(s, "cam"), body: Self.publishOffer)
            #expect(whip.status == 201 && whip.headers["Content-Type"] == "application/sdp")
            let publisher = try #require(whip.headers["Location"])
            #expect(publisher.hasPrefix("/v1/rooms/stage/whip/PA") && whip.headers["ETag"] != nil)
            #expect(whip.headers["Access-Control-Expose-Headers"] == "Location")
            #expect(whip.bodyText.hasPrefix("v=0") && whip.bodyText.contains("a=ice-lite") && whip.bodyText.contains("a=candidate"))
            // A viewer of the whole room (no grant room: any room).
            let whep = try await send(s, "POST", "/v1/rooms/stage/whep", token: try video(s, "viewer", room: nil), body: Self.viewOffer)
            #expect(whep.status == 201 && whep.bodyText.contains("a=sendonly"))
            let viewer = try #require(whep.headers["Location"])
            #expect(viewer.hasPrefix("/v1/rooms/stage/whep/PA"))

            let creds = s.server.defaultCredentials
            let auth = RESTFixture.basic(creds.account.sid, creds.account.authToken)
            let rooms = try await s.get("/v1/Rooms?UniqueName=stage", headers: auth)
            let roomSid = try #require(items(rooms, "rooms").first?["sid"]?.stringValue)
            let listed = try await s.get("/v1/Rooms/\(roomSid)/Participants?Status=connected", headers: auth)
            #expect(Set(items(listed, "participants").compactMap { $0["identity"]?.stringValue }) == ["cam", "viewer"])
            let cam = String(publisher.split(separator: "/").last ?? "")
            let tracks = try await s.get("/v1/Rooms/\(roomSid)/Participants/\(cam)/PublishedTracks", headers: auth)
            #expect(Set(items(tracks, "published_tracks").compactMap { $0["name"]?.stringValue }) == ["mic-1", "whip-video"])

            // The wrong kind or room: unknown. Any token of the account may DELETE (as for /v1/echo).
            #expect(try await send(s, "DELETE", viewer.replacingOccurrences(of: "/whep/", with: "/whip/"), token: try video(s, "x")).status == 404)
            #expect(try await send(s, "DELETE", viewer.replacingOccurrences(of: "/stage/", with: "/other/"), token: try video(s, "x")).status == 404)
            #expect(try await send(s, "DELETE", viewer.replacingOccurrences(of: "/stage/", with: "/\(roomSid)/"), token: try video(s, "x")).status == 200)
            #expect(try await send(s, "DELETE", publisher, token: try video(s, "cam")).status == 200)
            #expect(try await send(s, "DELETE", publisher, token: try video(s, "cam")).status == 404)
            let after = try await s.get("/v1/Rooms/\(roomSid)/Participants?Status=connected", headers: auth)
            #expect(after.status == 200 && items(after, "participants").isEmpty)
        }
    }

    @Test func aPublisherTakesAMediaSessionQuotaUnitUntilDeleted() async throws {
        try await withServer(mediaSessionsPerIdentity: 1) { s in
            let first = try await send(s, "POST", "/v1/rooms/stage/whip", token: try video(s, "cam", room: nil), body: Self.publishOffer)
            #expect(first.status == 201)
            let second = try await send(s, "POST", "/v1/rooms/other/whip", token: try video(s, "cam", room: nil), body: Self.publishOffer)
            #expect(second.status == 429 && errorCode(second) == 31429)
            let location = try #require(first.headers["Location"])
            #expect(try await send(s, "DELETE", location, token: try video(s, "cam")).status == 200)
            let third = try await send(s, "POST", "/v1/rooms/other/whip", token: try video(s, "cam", room: nil), body: Self.publishOffer)
            #expect(third.status == 201, "the unit came back with the DELETE")
        }
    }

    @Test func aRevokedKeysParticipantsLeave() async throws {
        try await withServer { s in
            let account = s.server.defaultCredentials.account
            let key = try s.server.store.createAPIKey(accountSid: account.sid, friendlyName: "doomed")
            let doomed = try AccessTokenBuilder.mint(accountSid: account.sid, apiKeySid: key.sid, apiSecret: key.secret,
                                                     identity: "cam", ttl: 600, grants: [.video(VideoGrant(room: "stage"))],
                                                     now: Int64(Date().timeIntervalSince1970))
            let whip = try await send(s, "POST", "/v1/rooms/stage/whip", token: doomed, body: Self.publishOffer)
            #expect(whip.status == 201)
            let whep = try await send(s, "POST", "/v1/rooms/stage/whep", token: try video(s, "viewer"), body: Self.viewOffer)
            #expect(whep.status == 201)
            let auth = RESTFixture.basic(account.sid, account.authToken)
            func connected() async throws -> Set<String> {
                Set(items(try await s.get("/v1/Rooms/stage/Participants?Status=connected", headers: auth), "participants")
                    .compactMap { $0["identity"]?.stringValue })
            }
            #expect(try await connected() == ["cam", "viewer"])
            try s.server.store.revokeAPIKey(sid: key.sid)
            #expect(try await eventually(.seconds(10)) { try await connected() == ["viewer"] })
        }
    }

    // MARK: - The pure parts

    @Test func offerTracksAreNamedByMsidOrKind() throws {
        let offer = try RoomResourceOffer(sdp: Self.publishOffer)
        #expect(offer.tracks == [RoomTrackInfo(mid: "0", name: "mic-1", kind: .audio), RoomTrackInfo(mid: "1", name: "whip-video", kind: .video)])
        #expect(offer.slots.isEmpty)
        let two = Self.publishOffer.replacingOccurrences(of: "a=msid:s mic-1\r\n", with: "")
            .replacingOccurrences(of: "a=group:BUNDLE 0 1", with: "a=group:BUNDLE 0 1 2")
            + ["m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=rtpmap:111 opus/48000/2", "a=mid:2", "a=sendrecv",
               "a=rtcp-mux", ""].joined(separator: "\r\n")
        let parsed = try RoomResourceOffer(sdp: two)
        #expect(parsed.tracks.map(\.name) == ["whip-audio", "whip-video", "whip-audio-2"])
        #expect(parsed.slots == [.audio: 1])
        #expect(try RoomResourceOffer(sdp: Self.viewOffer).slots == [.audio: 1, .video: 1])
    }

    private static func joined(_ others: [RoomParticipantInfo]) -> SignalingMessage {
        .roomJoined(RoomJoined(room: RoomInfo(sid: "RM1", name: "stage", type: .group),
                               participant: RoomParticipantInfo(sid: "PAme", identity: "viewer"), participants: others,
                               answer: "", published: [], subscriptions: []))
    }

    private static func track(_ sid: String, _ kind: RoomTrackKind) -> RoomTrackInfo {
        RoomTrackInfo(sid: sid, name: sid, kind: kind)
    }

    @Test func aViewerFillsItsSlotsAndFollowsTheRoom() {
        var room = WHEPSelection(choice: .room, slots: [.audio: 1, .video: 1])
        // Nothing before room.joined; then the first published audio and video.
        #expect(room.take(.roomTrackPublished(RoomTrackPublished(participantSid: "PAa", track: Self.track("MTa0", .audio)))) == .init())
        let alice = RoomParticipantInfo(sid: "PAa", identity: "alice", tracks: [Self.track("MTa1", .audio), Self.track("MTa2", .video)])
        let bob = RoomParticipantInfo(sid: "PAb", identity: "bob", tracks: [Self.track("MTb1", .audio), Self.track("MTb2", .video)])
        #expect(room.take(Self.joined([alice, bob])) == .init(subscribe: ["MTa0", "MTa2"]))
        // Full: a later track waits; an unpublished one is replaced by the next.
        #expect(room.take(.roomTrackUnpublished(RoomTrackUnpublished(participantSid: "PAa", trackSid: "MTa0"))) == .init(subscribe: ["MTa1"]))
        #expect(room.take(.roomParticipantDisconnected(RoomParticipantReference(participantSid: "PAa"))) == .init(subscribe: ["MTb1", "MTb2"]))
        // Video follows the dominant speaker.
        let carol = RoomParticipantInfo(sid: "PAc", identity: "carol", tracks: [Self.track("MTc2", .video)])
        #expect(room.take(.roomParticipantConnected(RoomParticipantConnected(participant: carol))) == .init())
        #expect(room.take(.roomDominantSpeaker(RoomDominantSpeaker(participantSid: "PAc"))) == .init(unsubscribe: ["MTb2"], subscribe: ["MTc2"]))
        #expect(room.receiving == ["MTb1": .audio, "MTc2": .video])
        // A refusal frees the slot for the next candidate.
        #expect(room.take(.roomSubscriptionFailed(RoomSubscriptionFailed(trackSid: "MTc2", code: 53300, message: ""))) == .init(subscribe: ["MTb2"]))

        var one = WHEPSelection(choice: .participant(identity: "bob"), slots: [.video: 1])
        #expect(one.take(Self.joined([alice])) == .init())
        #expect(one.take(.roomParticipantConnected(RoomParticipantConnected(participant: RoomParticipantInfo(sid: "PAb", identity: "bob")))) == .init())
        #expect(one.take(.roomTrackPublished(RoomTrackPublished(participantSid: "PAb", track: Self.track("MTb2", .video)))) == .init(subscribe: ["MTb2"]))

        var listed = WHEPSelection(choice: .tracks(["MTb2", "MTa1"]), slots: [.audio: 2, .video: 2])
        #expect(listed.take(Self.joined([alice, bob])) == .init(subscribe: ["MTa1", "MTb2"]))
    }

    @Test func theRoomsMixTakesOneAudioSlotOfADefaultViewer() {
        let alice = RoomParticipantInfo(sid: "PAa", identity: "alice", tracks: [Self.track("MTa1", .audio), Self.track("MTa2", .video)])
        let bob = RoomParticipantInfo(sid: "PAb", identity: "bob", tracks: [Self.track("MTb1", .audio)])
        var mixed = WHEPSelection(choice: .room, slots: [.audio: 1, .video: 1], mixesAudio: true)
        #expect(mixed.mixesAudio)
        #expect(mixed.take(Self.joined([alice, bob])) == .init(subscribe: ["MTa2"]), "audio comes from the mix, no track")
        var two = WHEPSelection(choice: .room, slots: [.audio: 2], mixesAudio: true)
        #expect(two.take(Self.joined([alice, bob])) == .init(subscribe: ["MTa1"]), "a second audio slot takes a track")
        // Only the room's default mixes; a viewer without audio slots has nothing to mix into.
        #expect(!WHEPSelection(choice: .participant(identity: "bob"), slots: [.audio: 1], mixesAudio: true).mixesAudio)
        #expect(!WHEPSelection(choice: .room, slots: [.video: 1], mixesAudio: true).mixesAudio)
    }
}
