import ParleyCore
import ParleyNet
import ParleyStore
import ParleyTestClock
import ParleyTestSupport
import PlatformCore
import RoomService
import Signaling
import Testing
import VideoREST

/// Peer-to-peer and go rooms: participants join without a media session (the media plane is
/// never asked), see each other and each other's tracks as in group rooms, with the status
/// callbacks; the server relays `room.peer*` between two participants of one room only, naming
/// the sender, within each pair's budget; `go` rooms take two.
@Suite struct RoomPeerTests {
    struct Fixture {
        let store = InMemoryAccountStore()
        let media = RoomMediaTwin()
        let clock = VirtualClock()
        let http: HTTPClient
        let app: TwiMLTestApp
        let service: RoomService
        let accountSid: String
        static let servers = [RoomICEServer(urls: ["stun:127.0.0.1:3478"]),
                              RoomICEServer(urls: ["turn:127.0.0.1:3478?transport=udp"], username: "u", credential: "c")]

        init() throws {
            let credentials = try store.ensureDefaultAccount()
            accountSid = credentials.account.sid
            app = try TwiMLTestApp(authToken: credentials.account.authToken)
            app.serve("/rooms", contentType: "text/plain", body: [])
            http = try HTTPClient()
            var configuration = RoomService.Configuration()
            configuration.clock = clock
            configuration.iceServers = { identity in
                [Self.servers[0], RoomICEServer(urls: Self.servers[1].urls, username: "9:\(identity)", credential: "c")]
            }
            service = RoomService(store: store, webhooks: WebhookClient(http: http), media: media, configuration: configuration)
        }

        func room(_ name: String, type: ParleyStore.RoomType, max: Int = 10) async throws -> RoomRecord {
            try await service.createRoom(RoomCreateRequest(accountSid: accountSid, uniqueName: name, type: type,
                                                           statusCallback: app.baseURL + "/rooms", maxParticipants: max))
        }

        func join(_ identity: String, _ link: RecordingLink, room: String = "huddle",
                  tracks: [RoomTrackInfo] = micAndCamera) async throws(ParleyError) -> RoomJoined {
            let joined = try await service.connect(accountSid: accountSid, identity: identity, room: room, offer: nil,
                                                   tracks: tracks, peerToPeer: true, ref: "j-\(identity)", link: link)
            await service.settle()
            return joined
        }

        /// `message` from `from`, then what the service decided reached the links.
        func relay(_ message: SignalingMessage, from: String) async throws(ParleyError) {
            try await service.relay(message, from: from)
            await service.settle()
        }

        func callbacks(_ count: Int) async throws -> [String] {
            for _ in 0..<5_000 where app.requests("/rooms").count < count { try await Task.sleep(for: .milliseconds(1)) }
            return app.requests("/rooms").compactMap { $0.parameters["StatusCallbackEvent"] }
        }

        func close() async {
            http.shutdown()
            await app.shutdown()
        }
    }

    static let micAndCamera = [RoomTrackInfo(mid: "0", name: "mic", kind: .audio), RoomTrackInfo(mid: "1", name: "camera", kind: .video)]

    /// The code of the `ParleyError` `body` throws (-1 for another error), nil when it does not.
    static func code(_ body: () async throws -> Void) async -> Int? {
        do {
            try await body()
            return nil
        } catch let error as ParleyError {
            return error.code.rawValue
        } catch {
            return -1
        }
    }

    static func offer(to sid: String, _ sdp: String = "v=0 offer") -> SignalingMessage {
        .roomPeerOffer(RoomPeerDescription(participantSid: sid, sdp: sdp))
    }

    @Test func participantsJoinWithoutMediaSeeEachOtherAndTheirTracks() async throws {
        let f = try Fixture()
        let room = try await f.room("huddle", type: .peerToPeer)
        let (alice, bob) = (RecordingLink(), RecordingLink())
        let a = try await f.join("alice", alice)
        #expect(a.answer == nil && a.room == RoomInfo(sid: room.sid, name: "huddle", type: .peerToPeer))
        #expect(a.participant.tracks.map(\.name) == ["mic", "camera"] && a.participant.tracks.allSatisfy { $0.sid != nil })
        #expect(a.iceServers == [Fixture.servers[0], RoomICEServer(urls: Fixture.servers[1].urls, username: "9:alice", credential: "c")])
        #expect(alice.take() == [.roomJoined(a)] && alice.refs == ["j-alice"])

        let b = try await f.join("bob", bob, tracks: [RoomTrackInfo(name: "mic", kind: .audio, enabled: false)])
        #expect(b.participants.map(\.identity) == ["alice"] && b.participants[0].tracks.map(\.sid) == a.participant.tracks.map(\.sid))
        #expect(b.participants[0].tracks.allSatisfy { $0.mid == nil }, "remote tracks carry no mid")
        let bMic = try #require(b.participant.tracks.first?.sid)
        #expect(alice.take() == [
            .roomParticipantConnected(RoomParticipantConnected(participant: RoomParticipantInfo(sid: b.participant.sid, identity: "bob"))),
            .roomTrackPublished(RoomTrackPublished(participantSid: b.participant.sid,
                                                   track: RoomTrackInfo(sid: bMic, name: "mic", kind: .audio, enabled: false))),
        ])
        #expect(f.media.routes.isEmpty && f.media.closed.isEmpty, "the media plane is never asked")
        #expect(await f.service.connectedParticipants(roomSid: room.sid).map(\.identity) == ["alice", "bob"])
        #expect(await f.service.publishedTracks(participantSid: a.participant.sid).count == 2)

        // Enabling is the server's business still; leaving tells the others, then the callbacks say it all.
        #expect(await f.service.setTrackEnabled(participantSid: b.participant.sid, trackSid: bMic, true))
        await f.service.leave(participantSid: b.participant.sid)
        await f.service.settle()
        #expect(alice.take() == [
            .roomTrackChanged(RoomTrackChanged(participantSid: b.participant.sid, trackSid: bMic, enabled: true)),
            .roomTrackUnpublished(RoomTrackUnpublished(participantSid: b.participant.sid, trackSid: bMic)),
            .roomParticipantDisconnected(RoomParticipantReference(participantSid: b.participant.sid)),
        ])
        #expect(await Self.code { try await f.relay(Self.offer(to: b.participant.sid), from: a.participant.sid) } == 53204)
        #expect(try await f.callbacks(10) == ["room-created", "participant-connected", "track-added", "track-added",
                                              "participant-connected", "track-added", "track-disabled", "track-enabled",
                                              "track-removed", "participant-disconnected"])
        await f.close()
    }

    @Test func offersAnswersAndCandidatesAreRelayedNamingTheSender() async throws {
        let f = try Fixture()
        _ = try await f.room("huddle", type: .peerToPeer)
        let (alice, bob, carol) = (RecordingLink(), RecordingLink(), RecordingLink())
        let a = try await f.join("alice", alice).participant.sid
        let b = try await f.join("bob", bob).participant.sid
        let c = try await f.join("carol", carol).participant.sid
        _ = (alice.take(), bob.take(), carol.take())

        // carol, the newest, offers to each; each answers; candidates both ways.
        let published = [RoomPublishedTrack(mid: "0", trackSid: "MT1")]
        try await f.relay(.roomPeerOffer(RoomPeerDescription(participantSid: a, sdp: "offer c→a", published: published)), from: c)
        try await f.relay(Self.offer(to: b, "offer c→b"), from: c)
        try await f.relay(.roomPeerAnswer(RoomPeerDescription(participantSid: c, sdp: "answer a→c")), from: a)
        let candidate = RoomPeerCandidate(participantSid: a, candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host", sdpMid: "0")
        try await f.relay(.roomPeerCandidate(candidate), from: c)
        try await f.relay(.roomPeerCandidate(RoomPeerCandidate(participantSid: c, candidate: "")), from: a)
        #expect(alice.take() == [
            .roomPeerOffer(RoomPeerDescription(participantSid: c, sdp: "offer c→a", published: published)),
            .roomPeerCandidate(RoomPeerCandidate(participantSid: c, candidate: candidate.candidate, sdpMid: "0")),
        ])
        #expect(bob.take() == [Self.offer(to: c, "offer c→b")])
        #expect(carol.take() == [.roomPeerAnswer(RoomPeerDescription(participantSid: a, sdp: "answer a→c")),
                                 .roomPeerCandidate(RoomPeerCandidate(participantSid: a, candidate: ""))])

        // Only between two participants of the room: not to oneself, nobody, or another room's.
        _ = try await f.room("other", type: .peerToPeer)
        let dave = try await f.join("dave", RecordingLink(), room: "other").participant.sid
        #expect(await Self.code { try await f.relay(Self.offer(to: a), from: a) } == 53204)
        #expect(await Self.code { try await f.relay(Self.offer(to: "PA0000000000000000000000000000dead"), from: a) } == 53204)
        #expect(await Self.code { try await f.relay(Self.offer(to: dave), from: a) } == 53204)
        #expect(await Self.code { try await f.relay(Self.offer(to: a), from: dave) } == 53204)
        #expect(await Self.code { try await f.relay(Self.offer(to: a), from: "PA0000000000000000000000000000dead") } == 53204)
        #expect(await Self.code { try await f.relay(.roomLeave, from: a) } == 31400)
        // Subscriptions are the peers' business: 53117.
        await f.service.subscribe(participantSid: a, trackSid: "MT1", ref: "s1")
        await f.service.unsubscribe(participantSid: a, trackSid: "MT1")
        await f.service.settle()
        let refused = RoomSubscriptionFailed(trackSid: "MT1", code: 53117, message: "subscriptions in a peer-to-peer room are between the peers")
        #expect(alice.take() == [.roomSubscriptionFailed(refused), .roomSubscriptionFailed(refused)] && alice.refs.suffix(2) == ["s1", nil])
        #expect(bob.take().isEmpty)
        await f.close()
    }

    @Test func eachPairHasItsOwnBudgetAndItRefills() async throws {
        let f = try Fixture()
        _ = try await f.room("huddle", type: .peerToPeer)
        let (alice, bob) = (RecordingLink(), RecordingLink())
        let a = try await f.join("alice", alice).participant.sid
        let b = try await f.join("bob", bob).participant.sid
        let c = try await f.join("carol", RecordingLink()).participant.sid
        _ = (alice.take(), bob.take())

        for _ in 0..<20 { try await f.relay(Self.offer(to: a), from: c) }
        #expect(await Self.code { try await f.relay(Self.offer(to: a), from: c) } == 31429)
        #expect(await Self.code { try await f.relay(.roomPeerAnswer(RoomPeerDescription(participantSid: a, sdp: "v=0")), from: c) } == 31429)
        #expect(alice.take().count == 20, "what is over the budget is dropped")
        // Other pairs and candidates are not touched.
        try await f.relay(Self.offer(to: b), from: c)
        try await f.relay(Self.offer(to: c), from: a)
        let candidate = SignalingMessage.roomPeerCandidate(RoomPeerCandidate(participantSid: a, candidate: "c"))
        for _ in 0..<200 { try await f.relay(candidate, from: c) }
        #expect(await Self.code { try await f.relay(candidate, from: c) } == 31429)
        #expect(alice.take().count == 200 && bob.take().count == 1)

        // The windows roll: candidates after 10 s, offers after a minute.
        f.clock.advance(by: .seconds(10))
        try await f.relay(candidate, from: c)
        #expect(await Self.code { try await f.relay(Self.offer(to: a), from: c) } == 31429)
        f.clock.advance(by: .seconds(50))
        try await f.relay(Self.offer(to: a), from: c)
        #expect(alice.take().count == 2)
        await f.close()
    }

    @Test func aGoRoomTakesTwoAndRefusesTheThirdWith53105() async throws {
        let f = try Fixture()
        let room = try await f.room("pair", type: .go, max: 2)
        _ = try await f.join("alice", RecordingLink(), room: "pair")
        _ = try await f.join("bob", RecordingLink(), room: room.sid)
        #expect(await Self.code { _ = try await f.join("carol", RecordingLink(), room: "pair") } == 53105)
        #expect(await f.service.connectedParticipants(roomSid: room.sid).map(\.identity) == ["alice", "bob"])
        await f.close()
    }

    @Test func aClientWithoutTheRelayOrWithoutAnOfferIsRefused() async throws {
        let f = try Fixture()
        _ = try await f.room("huddle", type: .peerToPeer)
        let whip = await Self.code {
            _ = try await f.service.connect(accountSid: f.accountSid, identity: "obs", room: "huddle", offer: "send audio 0",
                                            tracks: [], link: RecordingLink())
        }
        #expect(whip == 53114, "WHIP and WHEP need the server's media")
        // A group room (here ad hoc) needs the offer; a group participant relays nothing.
        let noOffer = await Self.code {
            _ = try await f.service.connect(accountSid: f.accountSid, identity: "al", room: "standup", offer: nil, tracks: [],
                                            peerToPeer: true, link: RecordingLink())
        }
        #expect(noOffer == 53403)
        let group = try await f.service.connect(accountSid: f.accountSid, identity: "al", room: "standup", offer: "recv audio 0",
                                                tracks: [], peerToPeer: true, link: RecordingLink())
        #expect(group.answer != nil && group.iceServers.count == 2, "group rooms get the ICE servers too")
        let other = try await f.service.connect(accountSid: f.accountSid, identity: "bo", room: "standup", offer: "recv audio 0",
                                                tracks: [], peerToPeer: true, link: RecordingLink())
        await f.service.settle()
        #expect(await Self.code { try await f.relay(Self.offer(to: other.participant.sid), from: group.participant.sid) } == 31400)
        await f.close()
    }
}
