import Foundation
import ParleyCore
import ParleyNet
import ParleyServer
import PlatformCore
import ParleyTestSupport
import RoomService
import Signaling
import Testing

/// Room signaling end to end: a `PlatformServer` on loopback with a media-plane twin, clients on
/// `/v1/signaling` joining a room (docs/signaling.md §12), what each is sent and in which order,
/// the routes the twin is asked for, and the refusals (roomV, video grant, an offer the server's own media plane cannot read).
@Suite(.serialized) struct RoomSignalingTests {
    /// The next `count` messages of `client`, with their refs.
    func next(_ count: Int, of client: SignalingTestClient) async throws -> [SignalingEnvelope] {
        var envelopes: [SignalingEnvelope] = []
        for _ in 0..<count {
            guard let envelope = try await client.next() else { throw TestFailure("socket closed") }
            envelopes.append(envelope)
        }
        return envelopes
    }

    /// Waits (polling) until the twin was asked for `count` routes.
    private func routes(_ media: RoomMediaTwin, count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(10)
        while media.routes.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        return media.routeLog
    }

    /// Waits (polling) until the twin closed `count` sessions.
    private func closed(_ media: RoomMediaTwin, count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(10)
        while media.closed.count < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        return media.closed
    }

    /// Runs `body` against a started harness and stops it, also when `body` throws.
    func withHarness(roomMedia: RoomMediaTwin?, configure: (inout ServerConfiguration) -> Void = { _ in },
                     _ body: (VoiceHarness) async throws -> Void) async throws {
        let h = try await VoiceHarness.start(roomMedia: roomMedia, configure: configure)
        do {
            try await body(h)
        } catch {
            await h.stop()
            throw error
        }
        await h.stop()
    }

    func videoClient(_ h: VoiceHarness, _ identity: String) async throws -> SignalingTestClient {
        try await SignalingTestClient(baseURL: h.baseURL, token: h.token(identity, voice: false))
    }

    @Test func twoClientsJoinPublishSubscribeRenegotiateAndLeave() async throws {
        let media = RoomMediaTwin()
        try await withHarness(roomMedia: media) { h in
            let alice = try await videoClient(h, "alice")
            let tracks = [RoomTrackInfo(mid: "0", name: "mic", kind: .audio), RoomTrackInfo(mid: "1", name: "camera", kind: .video)]
            try await alice.send(.roomJoin(RoomJoin(room: "standup", offer: RoomMediaTwin.offer(
                "send audio 0", "send video 1", "recv audio 2", "recv video 3"), tracks: tracks)), id: "j1")
            let aliceJoined = try #require(try await next(1, of: alice).first)
            guard case .roomJoined(let a) = aliceJoined.message else { throw TestFailure("expected room.joined: \(aliceJoined)") }
            #expect(aliceJoined.ref == "j1" && a.roomV == 1 && a.room.name == "standup" && a.answer == "answer of S1")
            #expect(a.participant.identity == "alice" && a.published.map(\.mid) == ["0", "1"] && a.participants.isEmpty)
            let (aMic, aCam) = (a.published[0].trackSid, a.published[1].trackSid)

            // bob publishes a mic and has one audio slot: alice's camera waits for a video slot.
            let bob = try await videoClient(h, "bob")
            try await bob.send(.roomJoin(RoomJoin(room: "standup", offer: RoomMediaTwin.offer("send audio 0", "recv audio 1"),
                                                  tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])), id: "j2")
            let bobFirst = try await next(2, of: bob)
            guard case .roomJoined(let b) = bobFirst[0].message else { throw TestFailure("expected room.joined: \(bobFirst)") }
            #expect(bobFirst[0].ref == "j2" && b.participants.map(\.sid) == [a.participant.sid])
            #expect(b.subscriptions == [RoomSubscription(mid: "1", trackSid: aMic, participantSid: a.participant.sid)])
            #expect(bobFirst[1].message == .roomRenegotiate(RoomRenegotiate(video: 1)))
            let bMic = b.published[0].trackSid
            #expect(try await next(3, of: alice).map(\.message) == [
                .roomParticipantConnected(RoomParticipantConnected(participant: RoomParticipantInfo(sid: b.participant.sid, identity: "bob"))),
                .roomTrackPublished(RoomTrackPublished(participantSid: b.participant.sid, track: RoomTrackInfo(sid: bMic, name: "mic", kind: .audio))),
                .roomSubscribed(RoomSubscribed(trackSid: bMic, mid: "2", participantSid: b.participant.sid)),
            ])

            // bob adds the video slot: the answer maps it, then room.subscribed says so.
            try await bob.send(.roomOffer(RoomOffer(offer: RoomMediaTwin.offer("send audio 0", "recv audio 1", "recv video 2"),
                                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])), id: "o1")
            let bobAnswer = try await next(2, of: bob)
            guard case .roomAnswer(let answer) = bobAnswer[0].message else { throw TestFailure("expected room.answer: \(bobAnswer)") }
            #expect(bobAnswer[0].ref == "o1" && answer.answer == "answer of S2" && answer.published.map(\.trackSid) == [bMic])
            #expect(answer.subscriptions.map(\.trackSid) == [aMic, aCam])
            #expect(bobAnswer[1].message == .roomSubscribed(RoomSubscribed(trackSid: aCam, mid: "2", participantSid: a.participant.sid)))
            #expect(try await routes(media, count: 3) == ["S1/0→S2/1", "S2/0→S1/2", "S1/1→S2/2"])

            // bob mutes, then closes his connection: alice hears it all, in order; his session is closed.
            try await bob.send(.roomTrackEnabled(RoomTrackEnabled(trackSid: bMic, enabled: false)))
            #expect(try await next(1, of: alice).map(\.message)
                        == [.roomTrackChanged(RoomTrackChanged(participantSid: b.participant.sid, trackSid: bMic, enabled: false))])
            await bob.close()
            #expect(try await next(3, of: alice).map(\.message) == [
                .roomUnsubscribed(RoomTrackReference(trackSid: bMic)),
                .roomTrackUnpublished(RoomTrackUnpublished(participantSid: b.participant.sid, trackSid: bMic)),
                .roomParticipantDisconnected(RoomParticipantReference(participantSid: b.participant.sid)),
            ])
            #expect(try await routes(media, count: 4).last == "-→S1/2")
            #expect(try await closed(media, count: 1) == ["S2"])

            // alice leaves; a request after that is answered 53204.
            try await alice.send(.roomLeave, id: "l1")
            try await alice.send(.roomSubscribe(RoomTrackReference(trackSid: bMic)), id: "s1")
            let late = try #require(try await next(1, of: alice).first)
            guard case .error(let error) = late.message else { throw TestFailure("expected error: \(late)") }
            #expect(error.code == 53204 && late.ref == "s1")
            #expect(try await closed(media, count: 2) == ["S2", "S1"])
            await alice.close()
        }
    }

    @Test func aDroppedSocketIsReconnectingToTheOthersUntilItResumes() async throws {
        try await withHarness(roomMedia: RoomMediaTwin()) { h in
            let alice = try await videoClient(h, "alice")
            try await alice.send(.roomJoin(RoomJoin(room: "standup", offer: RoomMediaTwin.offer("recv audio 0"), tracks: [])), id: "j1")
            _ = try await next(1, of: alice)
            let bob = try await videoClient(h, "bob")
            try await bob.send(.roomJoin(RoomJoin(room: "standup", offer: RoomMediaTwin.offer("recv audio 0"), tracks: [])), id: "j2")
            guard case .roomJoined(let b) = try #require(try await next(1, of: bob).first).message else {
                throw TestFailure("bob did not join")
            }
            _ = try await next(1, of: alice)  // participantConnected
            let reference = RoomParticipantReference(participantSid: b.participant.sid)
            // bob's socket drops (no close frame): alice hears he is reconnecting, and he is still in.
            let session = try #require(bob.sessionID)
            await bob.drop()
            #expect(try await next(1, of: alice).map(\.message) == [.roomParticipantReconnecting(reference)])
            // He resumes the session within the window: alice hears he is back; nothing else changed.
            let again = try await SignalingTestClient(baseURL: h.baseURL, token: h.token("bob", voice: false), resume: session)
            guard case .resumed = again.greeting else { throw TestFailure("expected resumed: \(again.greeting)") }
            #expect(try await next(1, of: alice).map(\.message) == [.roomParticipantReconnected(reference)])
            await again.close()
            await alice.close()
        }
    }

    @Test func aRejoinOnANewConnectionKeepsTheParticipantAndItsTracks() async throws {
        let media = RoomMediaTwin()
        try await withHarness(roomMedia: media) { h in
            let alice = try await videoClient(h, "alice")
            try await alice.send(.roomJoin(RoomJoin(room: "standup", offer: RoomMediaTwin.offer("recv audio 0"), tracks: [])), id: "j1")
            _ = try await next(1, of: alice)
            let mic = [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)]
            let bob = try await videoClient(h, "bob")
            try await bob.send(.roomJoin(RoomJoin(room: "standup", offer: RoomMediaTwin.offer("send audio 0", "recv audio 1"),
                                                  tracks: mic)), id: "j2")
            guard case .roomJoined(let b) = try #require(try await next(1, of: bob).first).message else {
                throw TestFailure("bob did not join")
            }
            let bMic = b.published[0].trackSid
            _ = try await next(3, of: alice)  // participantConnected, trackPublished, subscribed
            #expect(try await routes(media, count: 1) == ["S2/0→S1/0"])
            let reference = RoomParticipantReference(participantSid: b.participant.sid)
            await bob.drop()
            #expect(try await next(1, of: alice).map(\.message) == [.roomParticipantReconnecting(reference)])

            // bob comes back on a new signaling session (no resume) with a new offer, naming his SID.
            let again = try await videoClient(h, "bob")
            try await again.send(.roomJoin(RoomJoin(room: "standup", offer: RoomMediaTwin.offer("send audio 5", "recv audio 6"),
                                                    tracks: [RoomTrackInfo(mid: "5", name: "mic", kind: .audio)],
                                                    reconnectParticipantSid: b.participant.sid)), id: "j3")
            let rejoined = try #require(try await next(1, of: again).first)
            guard case .roomJoined(let r) = rejoined.message else { throw TestFailure("expected room.joined: \(rejoined)") }
            #expect(rejoined.ref == "j3" && r.participant.sid == b.participant.sid && r.answer == "answer of S3")
            #expect(r.published == [RoomPublishedTrack(mid: "5", trackSid: bMic)] && r.participants.map(\.identity) == ["alice"])
            // alice hears he is back, and nothing else (the pong comes next); his mic now comes from S3.
            try await alice.send(.ping, id: "p1")
            #expect(try await next(2, of: alice).map(\.message) == [.roomParticipantReconnected(reference), .pong])
            #expect(try await routes(media, count: 2) == ["S2/0→S1/0", "S3/5→S1/0"])
            #expect(try await closed(media, count: 1) == ["S2"])

            // A reconnect SID of someone else's identity is a plain join: a new participant.
            let carol = try await videoClient(h, "carol")
            try await carol.send(.roomJoin(RoomJoin(room: "standup", offer: RoomMediaTwin.offer("recv audio 0"),
                                                    reconnectParticipantSid: b.participant.sid)), id: "j4")
            guard case .roomJoined(let c) = try #require(try await next(1, of: carol).first).message else {
                throw TestFailure("carol did not join")
            }
            #expect(c.participant.sid != b.participant.sid && c.participants.map(\.sid) == [r.participants[0].sid, b.participant.sid])
            await carol.close()
            await again.close()
            await alice.close()
        }
    }

    @Test func aJoinTakesAMediaSessionQuotaUnitUntilItLeaves() async throws {
        try await withHarness(roomMedia: RoomMediaTwin(), configure: { $0.quotas.perIdentity.mediaSessions = 1 }) { h in
            let first = try await videoClient(h, "alice"), second = try await videoClient(h, "alice")
            try await first.send(.roomJoin(RoomJoin(room: "one", offer: RoomMediaTwin.offer("recv audio 0"))), id: "j1")
            guard case .roomJoined = try #require(try await next(1, of: first).first).message else { throw TestFailure("no join") }
            try await second.send(.roomJoin(RoomJoin(room: "two", offer: RoomMediaTwin.offer("recv audio 0"))), id: "j2")
            let refused = try #require(try await next(1, of: second).first)
            guard case .error(let error) = refused.message else { throw TestFailure("expected error: \(refused)") }
            #expect(error.code == 31429 && refused.ref == "j2")
            // Leaving gives the unit back (the pong comes after the leave was handled).
            try await first.send(.roomLeave)
            try await first.send(.ping, id: "p1")
            #expect(try await next(1, of: first).map(\.message) == [.pong])
            try await second.send(.roomJoin(RoomJoin(room: "two", offer: RoomMediaTwin.offer("recv audio 0"))), id: "j3")
            guard case .roomJoined = try #require(try await next(1, of: second).first).message else {
                throw TestFailure("the unit was not given back")
            }
            await first.close()
            await second.close()
        }
    }

    @Test func refusalsKeepTheConnectionOpen() async throws {
        try await withHarness(roomMedia: RoomMediaTwin()) { h in
            let video = try await videoClient(h, "carol")
            try await video.webSocket.send(text: #"{"type":"room.join","id":"v2","roomV":2,"room":"x","offer":"send audio 0"}"#)
            let refused = try #require(try await video.next())
            guard case .error(let versionError) = refused.message else { throw TestFailure("expected error: \(refused)") }
            #expect(versionError.code == 31426 && refused.ref == "v2")
            try await video.send(.roomJoin(RoomJoin(room: "x", offer: "recv audio 0",
                                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])), id: "t1")
            let badTrack = try #require(try await video.next())
            guard case .error(let trackError) = badTrack.message else { throw TestFailure("expected error: \(badTrack)") }
            #expect(trackError.code == 53300 && badTrack.ref == "t1")

            // A grant for room A does not admit to room B (20106), but to A by its SID too.
            let roomA = try await SignalingTestClient(baseURL: h.baseURL, token: h.token("frank", voice: false, videoRoom: "A"))
            try await roomA.send(.roomJoin(RoomJoin(room: "B", offer: RoomMediaTwin.offer("recv audio 0"))), id: "b1")
            let otherRoom = try #require(try await roomA.next())
            guard case .error(let roomError) = otherRoom.message else { throw TestFailure("expected error: \(otherRoom)") }
            #expect(roomError.code == 20106 && otherRoom.ref == "b1")
            try await roomA.send(.roomJoin(RoomJoin(room: "A", offer: RoomMediaTwin.offer("recv audio 0"))), id: "a1")
            guard case .roomJoined(let inA) = try #require(try await roomA.next()).message else { throw TestFailure("frank is not in A") }
            let bySid = try await SignalingTestClient(baseURL: h.baseURL, token: h.token("gina", voice: false, videoRoom: "A"))
            try await bySid.send(.roomJoin(RoomJoin(room: inA.room.sid, offer: RoomMediaTwin.offer("recv audio 0"))), id: "a2")
            guard case .roomJoined(let sameRoom) = try #require(try await bySid.next()).message else {
                throw TestFailure("a grant naming A did not admit to A's SID")
            }
            #expect(sameRoom.room.sid == inA.room.sid)
            await bySid.close()
            await roomA.close()

            // A voice-only token says hello but may not join a room.
            let voice = try await SignalingTestClient(baseURL: h.baseURL, token: h.token("dave"))
            try await voice.send(.roomJoin(RoomJoin(room: "x", offer: "recv audio 0")), id: "g1")
            let noGrant = try #require(try await voice.next())
            guard case .error(let grantError) = noGrant.message else { throw TestFailure("expected error: \(noGrant)") }
            #expect(grantError.code == 20106 && noGrant.ref == "g1")
            try await voice.send(.ping, id: "p1")
            #expect(try await voice.next()?.message == .pong)
            await voice.close()
            await video.close()
        }
    }

    @Test func theServersMediaPlaneRefusesAnOfferThatIsNotSDPWith53403() async throws {
        try await withHarness(roomMedia: nil) { h in
            let client = try await videoClient(h, "erin")
            try await client.send(.roomJoin(RoomJoin(room: "x", offer: "recv audio 0")), id: "j1")
            let reply = try #require(try await client.next())
            guard case .error(let error) = reply.message else { throw TestFailure("expected error: \(reply)") }
            #expect(error.code == 53403 && reply.ref == "j1")
            await client.close()
        }
    }
}
