import ParleyCore
import ParleyNet
import ParleyStore
import ParleyTestClock
import ParleyTestSupport
import PlatformCore
import RoomService
import SFU
import Signaling
import Testing

/// Participants with media over a media-plane twin: tracks published from offers, subscriptions
/// routed into receive slots, slots asked for with `room.renegotiate` and filled after the
/// re-offer, emptied slots reused, and what the others are told, in order.
@Suite struct RoomSessionTests {
    struct Fixture {
        let store = InMemoryAccountStore()
        let media = RoomMediaTwin()
        let clock = VirtualClock()
        let http: HTTPClient
        let service: RoomService
        let accountSid: String

        init(configure: (inout RoomService.Configuration) -> Void = { _ in }) throws {
            accountSid = try store.ensureDefaultAccount().account.sid
            http = try HTTPClient()
            var configuration = RoomService.Configuration()
            configuration.clock = clock
            configure(&configuration)
            service = RoomService(store: store, webhooks: WebhookClient(http: http), media: media,
                                  configuration: configuration)
        }

        func connect(_ identity: String, _ link: RecordingLink, offer: String, tracks: [RoomTrackInfo],
                     automatic: Bool = true, room: String = "standup", speaker: Bool = false,
                     quality: Bool = false, bandwidth: RoomBandwidthProfile? = nil) async throws(ParleyError) -> RoomJoined {
            let joined = try await service.connect(accountSid: accountSid, identity: identity, room: room, offer: offer,
                                                   tracks: tracks, automaticSubscription: automatic,
                                                   dominantSpeaker: speaker, networkQuality: quality, bandwidthProfile: bandwidth,
                                                   ref: "j-\(identity)", link: link)
            await service.settle()
            return joined
        }

        func close() { http.shutdown() }
    }

    static let micAndCamera = [RoomTrackInfo(mid: "0", name: "mic", kind: .audio),
                               RoomTrackInfo(mid: "1", name: "camera", kind: .video, priority: .high)]

    /// The SID of `identity`'s track `name` as `joined` lists it.
    static func sid(_ joined: RoomJoined, _ name: String) -> String {
        joined.participant.tracks.first { $0.name == name }?.sid ?? "?"
    }

    @Test func twoPublishersReceiveEachOtherAndAThirdIsAskedForSlotsThenServed() async throws {
        let f = try Fixture()
        let (alice, bob, carol) = (RecordingLink(), RecordingLink(), RecordingLink())
        let a = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("send audio 0", "send video 1", "recv audio 2",
                                                                              "recv video 3"), tracks: Self.micAndCamera)
        #expect(a.participant.identity == "alice" && a.participant.tracks.count == 2 && a.participants.isEmpty)
        #expect(a.answer == "answer of S1" && a.published.map(\.mid) == ["0", "1"] && a.subscriptions.isEmpty)
        #expect(alice.take() == [.roomJoined(a)] && alice.refs == ["j-alice"])
        let (aMic, aCam) = (Self.sid(a, "mic"), Self.sid(a, "camera"))

        let b = try await f.connect("bob", bob, offer: RoomMediaTwin.offer("send audio 0", "send video 1", "recv audio 2",
                                                                          "recv video 3"), tracks: Self.micAndCamera)
        let (bMic, bCam) = (Self.sid(b, "mic"), Self.sid(b, "camera"))
        #expect(b.participants.map(\.identity) == ["alice"] && b.participants[0].tracks.map(\.sid) == [aMic, aCam])
        #expect(b.participants[0].tracks.allSatisfy { $0.mid == nil }, "remote tracks carry no mid")
        #expect(b.subscriptions == [RoomSubscription(mid: "2", trackSid: aMic, participantSid: a.participant.sid),
                                    RoomSubscription(mid: "3", trackSid: aCam, participantSid: a.participant.sid)])
        #expect(bob.take() == [.roomJoined(b)])
        #expect(alice.take() == [
            .roomParticipantConnected(RoomParticipantConnected(participant: RoomParticipantInfo(sid: b.participant.sid, identity: "bob"))),
            .roomTrackPublished(RoomTrackPublished(participantSid: b.participant.sid, track: RoomTrackInfo(sid: bMic, name: "mic", kind: .audio))),
            .roomTrackPublished(RoomTrackPublished(participantSid: b.participant.sid,
                                                   track: RoomTrackInfo(sid: bCam, name: "camera", kind: .video, priority: .high))),
            .roomSubscribed(RoomSubscribed(trackSid: bMic, mid: "2", participantSid: b.participant.sid)),
            .roomSubscribed(RoomSubscribed(trackSid: bCam, mid: "3", participantSid: b.participant.sid)),
        ])
        #expect(f.media.routeLog == ["S1/0→S2/2", "S1/1→S2/3", "S2/0→S1/2", "S2/1→S1/3"])

        // carol has one slot of each kind for four remote tracks, and publishes a mic.
        let c = try await f.connect("carol", carol, offer: RoomMediaTwin.offer("send audio 0", "recv audio 1", "recv video 2"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        let cMic = Self.sid(c, "mic")
        #expect(c.subscriptions.map(\.trackSid) == [aMic, aCam])
        #expect(carol.take() == [.roomJoined(c), .roomRenegotiate(RoomRenegotiate(audio: 1, video: 1))])
        let carolPublished = RoomTrackPublished(participantSid: c.participant.sid, track: RoomTrackInfo(sid: cMic, name: "mic", kind: .audio))
        for link in [alice, bob] {
            #expect(link.take() == [
                .roomParticipantConnected(RoomParticipantConnected(participant: RoomParticipantInfo(sid: c.participant.sid, identity: "carol"))),
                .roomTrackPublished(carolPublished), .roomRenegotiate(RoomRenegotiate(audio: 1)),
            ])
        }

        // carol adds the two slots: bob's tracks fill them; the answer maps them, then room.subscribed.
        let answer = try await f.service.renegotiate(
            participantSid: c.participant.sid, offer: RoomMediaTwin.offer("send audio 0", "recv audio 1", "recv video 2",
                                                                          "recv audio 3", "recv video 4"),
            tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)], ref: "o1")
        await f.service.settle()
        #expect(answer.published == [RoomPublishedTrack(mid: "0", trackSid: cMic)])
        #expect(answer.subscriptions.map(\.mid) == ["1", "2", "3", "4"] && answer.subscriptions.map(\.trackSid) == [aMic, aCam, bMic, bCam])
        #expect(carol.take() == [.roomAnswer(answer),
                                 .roomSubscribed(RoomSubscribed(trackSid: bMic, mid: "3", participantSid: b.participant.sid)),
                                 .roomSubscribed(RoomSubscribed(trackSid: bCam, mid: "4", participantSid: b.participant.sid))])
        #expect(carol.refs == ["j-carol", nil, "o1", nil, nil])
        _ = try await f.service.renegotiate(participantSid: a.participant.sid, offer: RoomMediaTwin.offer(
            "send audio 0", "send video 1", "recv audio 2", "recv video 3", "recv audio 4"), tracks: Self.micAndCamera)
        await f.service.settle()
        #expect(alice.take().last == .roomSubscribed(RoomSubscribed(trackSid: cMic, mid: "4", participantSid: c.participant.sid)))
        #expect(f.media.routeLog.contains("S2/0→S3/3") && f.media.routeLog.contains("S2/1→S3/4")
                    && f.media.routeLog.contains("S3/0→S1/4"))

        // bob leaves: his subscribers' slots are emptied, they are told, his session is closed.
        let before = f.media.routes.count
        await f.service.leave(participantSid: b.participant.sid)
        await f.service.settle()
        #expect(f.media.closed == ["S2"])
        #expect(carol.take() == [
            .roomUnsubscribed(RoomTrackReference(trackSid: bMic)),
            .roomTrackUnpublished(RoomTrackUnpublished(participantSid: b.participant.sid, trackSid: bMic)),
            .roomUnsubscribed(RoomTrackReference(trackSid: bCam)),
            .roomTrackUnpublished(RoomTrackUnpublished(participantSid: b.participant.sid, trackSid: bCam)),
            .roomParticipantDisconnected(RoomParticipantReference(participantSid: b.participant.sid)),
        ])
        #expect(Set(f.media.routeLog.dropFirst(before)) == ["-→S1/2", "-→S1/3", "-→S3/3", "-→S3/4"])

        // dave's mic goes into alice's freed audio slot 2, without a renegotiation.
        let dave = RecordingLink()
        let d = try await f.connect("dave", dave, offer: RoomMediaTwin.offer("send audio 0"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        let aliceHeard = alice.take()
        #expect(aliceHeard.contains(.roomSubscribed(RoomSubscribed(trackSid: Self.sid(d, "mic"), mid: "2", participantSid: d.participant.sid))))
        #expect(!aliceHeard.contains { if case .roomRenegotiate = $0 { true } else { false } })
        #expect(f.media.routeLog.contains("S4/0→S1/2"))
        #expect(dave.take().last == .roomRenegotiate(RoomRenegotiate(audio: 2, video: 1)), "dave has no slot for three tracks")
        f.close()
    }

    @Test func explicitSubscriptionsMutesAndUnsubscribes() async throws {
        let f = try Fixture()
        let (alice, bob) = (RecordingLink(), RecordingLink())
        let a = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("send audio 0"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        let mic = Self.sid(a, "mic")
        let b = try await f.connect("bob", bob, offer: RoomMediaTwin.offer("recv audio 5"), tracks: [], automatic: false)
        #expect(b.subscriptions.isEmpty && b.participants.first?.tracks.map(\.sid) == [mic], "bob subscribes by hand")
        #expect(bob.take() == [.roomJoined(b)])
        let bobSid = b.participant.sid

        await f.service.subscribe(participantSid: bobSid, trackSid: mic, ref: "s1")
        await f.service.subscribe(participantSid: bobSid, trackSid: "MT00000000000000000000000000000000", ref: "s2")
        await f.service.settle()
        #expect(bob.take() == [
            .roomSubscribed(RoomSubscribed(trackSid: mic, mid: "5", participantSid: a.participant.sid)),
            .roomSubscriptionFailed(RoomSubscriptionFailed(trackSid: "MT00000000000000000000000000000000", code: 53300,
                                                           message: "no track MT00000000000000000000000000000000 this participant may receive")),
        ])
        #expect(bob.refs.suffix(2) == ["s1", "s2"])
        #expect(f.media.routeLog == ["S1/0→S2/5"])

        #expect(await f.service.setTrackEnabled(participantSid: a.participant.sid, trackSid: mic, false))
        #expect(await !f.service.setTrackEnabled(participantSid: bobSid, trackSid: mic, true), "only its publisher mutes a track")
        await f.service.unsubscribe(participantSid: bobSid, trackSid: mic, ref: "u1")
        await f.service.settle()
        #expect(bob.take() == [.roomTrackChanged(RoomTrackChanged(participantSid: a.participant.sid, trackSid: mic, enabled: false)),
                               .roomUnsubscribed(RoomTrackReference(trackSid: mic))])
        #expect(bob.refs.last == "u1")
        #expect(f.media.routeLog == ["S1/0→S2/5", "-→S2/5"])
        #expect(alice.take().isEmpty == false)

        // REST rules apply to what bob subscribed to.
        await f.service.subscribe(participantSid: bobSid, trackSid: mic)
        _ = await f.service.updateSubscribeRules(roomSid: a.room.sid, participantSid: bobSid, .subscribeNone)
        await f.service.settle()
        #expect(bob.take() == [.roomSubscribed(RoomSubscribed(trackSid: mic, mid: "5", participantSid: a.participant.sid)),
                               .roomUnsubscribed(RoomTrackReference(trackSid: mic))])
        f.close()
    }

    /// Unpublishing with a re-offer (docs/signaling.md §12, Unpublishing): a sending section gone
    /// (stopped, port 0, or no longer sending) unpublishes its track — the publisher's answer no
    /// longer maps it, its subscribers are unsubscribed then told — and a new section with the
    /// same name publishes it again under a new SID, into the slot it freed.
    @Test func aReofferWithoutASendingSectionUnpublishesItsTrackAndANewOneRepublishes() async throws {
        let f = try Fixture()
        let (alice, bob) = (RecordingLink(), RecordingLink())
        let a = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("send audio 0", "send video 1"), tracks: Self.micAndCamera)
        _ = try await f.connect("bob", bob, offer: RoomMediaTwin.offer("recv audio 0", "recv video 1"), tracks: [])
        let (mic, camera) = (Self.sid(a, "mic"), Self.sid(a, "camera"))
        _ = alice.take()
        _ = bob.take()
        let routes = f.media.routes.count

        let answer = try await f.service.renegotiate(participantSid: a.participant.sid, offer: RoomMediaTwin.offer("send audio 0"),
                                                     tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)], ref: "o1")
        await f.service.settle()
        #expect(answer.published == [RoomPublishedTrack(mid: "0", trackSid: mic)], "the camera's section maps no track")
        #expect(alice.take() == [.roomAnswer(answer)])
        #expect(bob.take() == [.roomUnsubscribed(RoomTrackReference(trackSid: camera)),
                               .roomTrackUnpublished(RoomTrackUnpublished(participantSid: a.participant.sid, trackSid: camera))])
        #expect(Array(f.media.routeLog.dropFirst(routes)) == ["-→S2/1"])
        #expect(await f.service.publishedTracks(participantSid: a.participant.sid).map(\.sid) == [mic])

        let again = try await f.service.renegotiate(
            participantSid: a.participant.sid, offer: RoomMediaTwin.offer("send audio 0", "send video 2"),
            tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio), RoomTrackInfo(mid: "2", name: "camera", kind: .video)])
        await f.service.settle()
        let newCamera = try #require(again.published.first { $0.mid == "2" }?.trackSid)
        #expect(newCamera != camera && newCamera.hasPrefix("MT"))
        #expect(bob.take() == [
            .roomTrackPublished(RoomTrackPublished(participantSid: a.participant.sid,
                                                   track: RoomTrackInfo(sid: newCamera, name: "camera", kind: .video))),
            .roomSubscribed(RoomSubscribed(trackSid: newCamera, mid: "1", participantSid: a.participant.sid)),
        ], "the freed slot takes it, with no renegotiation")
        #expect(f.media.routeLog.last == "S1/2→S2/1")
        f.close()
    }

    @Test func badTracksAreRefusedAndRemovalsAreSaid() async throws {
        let f = try Fixture()
        let alice = RecordingLink()
        do throws(ParleyError) {
            _ = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("recv audio 0"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
            Issue.record("a track in a receive section was published")
        } catch {
            #expect(error.code == .trackInvalid)
        }
        await f.service.settle()
        #expect(f.media.closed == ["S1"] && alice.messages.isEmpty)

        let a = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("send audio 0"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        let bob = RecordingLink()
        let b = try await f.connect("bob", bob, offer: RoomMediaTwin.offer("recv audio 0"), tracks: [])
        _ = alice.take()
        _ = bob.take()
        // Alice's media session fails: she is removed and told, bob hears she left.
        f.media.fire(.closed(session: "S2", error: ParleyError(.mediaConnection, reason: "ICE consent expired")), session: "S2")
        for _ in 0..<5_000 where alice.removals.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        await f.service.settle()
        #expect(alice.take() == [.roomDisconnected(RoomDisconnected(code: 53405, message: "ICE consent expired"))])
        #expect(alice.removals == [.mediaConnection])
        #expect(bob.take() == [
            .roomUnsubscribed(RoomTrackReference(trackSid: Self.sid(a, "mic"))),
            .roomTrackUnpublished(RoomTrackUnpublished(participantSid: a.participant.sid, trackSid: Self.sid(a, "mic"))),
            .roomParticipantDisconnected(RoomParticipantReference(participantSid: a.participant.sid)),
        ])
        _ = await f.service.completeRoom(sid: b.room.sid)
        for _ in 0..<5_000 where bob.removals.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        #expect(bob.take() == [.roomDisconnected(RoomDisconnected(code: 53118, message: "the room was completed"))])
        await f.service.settle()
        #expect(f.media.closed == ["S1", "S2", "S3"])
        f.close()
    }

    @Test func aCleanCloseOfTheMediaSessionIsALeave() async throws {
        let f = try Fixture()
        let (alice, bob) = (RecordingLink(), RecordingLink())
        let a = try await f.connect("alice", alice, offer: RoomMediaTwin.offer("send audio 0"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        _ = try await f.connect("bob", bob, offer: RoomMediaTwin.offer("recv audio 0"), tracks: [])
        _ = alice.take()
        _ = bob.take()
        // Alice's peer sends close_notify (its room.leave may still be on the way): she leaves.
        f.media.fire(.closed(session: "S1", error: nil), session: "S1")
        for _ in 0..<5_000 where !bob.messages.contains(.roomParticipantDisconnected(RoomParticipantReference(participantSid: a.participant.sid))) {
            try await Task.sleep(for: .milliseconds(1))
        }
        await f.service.settle()
        #expect(alice.take().isEmpty && alice.removals.isEmpty)
        #expect(await f.service.connectedParticipants(roomSid: a.room.sid).map(\.identity) == ["bob"])
        #expect(bob.take().last == .roomParticipantDisconnected(RoomParticipantReference(participantSid: a.participant.sid)))
        f.close()
    }

    @Test func aDuplicateIdentityReplacesTheFirstAndReconnectsAreTold() async throws {
        let f = try Fixture()
        let (first, second, bob) = (RecordingLink(), RecordingLink(), RecordingLink())
        let a1 = try await f.connect("alice", first, offer: RoomMediaTwin.offer("send audio 0"),
                                     tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        let b = try await f.connect("bob", bob, offer: RoomMediaTwin.offer("recv audio 0"), tracks: [])
        _ = bob.take()
        let a2 = try await f.connect("alice", second, offer: RoomMediaTwin.offer("send audio 0"),
                                     tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        for _ in 0..<5_000 where first.removals.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        #expect(first.messages.last == .roomDisconnected(RoomDisconnected(
            code: 53205, message: "alice connected to the room again")) && first.removals == [.participantDuplicateIdentity])
        let newMic = Self.sid(a2, "mic")
        #expect(bob.take() == [
            .roomUnsubscribed(RoomTrackReference(trackSid: Self.sid(a1, "mic"))),
            .roomTrackUnpublished(RoomTrackUnpublished(participantSid: a1.participant.sid, trackSid: Self.sid(a1, "mic"))),
            .roomParticipantDisconnected(RoomParticipantReference(participantSid: a1.participant.sid)),
            .roomParticipantConnected(RoomParticipantConnected(participant: RoomParticipantInfo(sid: a2.participant.sid, identity: "alice"))),
            .roomTrackPublished(RoomTrackPublished(participantSid: a2.participant.sid, track: RoomTrackInfo(sid: newMic, name: "mic", kind: .audio))),
            .roomSubscribed(RoomSubscribed(trackSid: newMic, mid: "0", participantSid: a2.participant.sid)),
        ], "the freed slot carries the new mic")
        #expect(f.media.routeLog == ["S1/0→S2/0", "-→S2/0", "S3/0→S2/0"])

        f.media.fire(.disconnected(session: "S3"), session: "S3")
        f.media.fire(.reconnected(session: "S3"), session: "S3")
        let reference = RoomParticipantReference(participantSid: a2.participant.sid)
        for _ in 0..<5_000 where bob.messages.count < 9 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(bob.take() == [.roomParticipantReconnecting(reference), .roomParticipantReconnected(reference)])
        #expect(b.participants.map(\.identity) == ["alice"])
        f.close()
    }

    @Test func aRejoinAfterTheReconnectWindowIsANewParticipant() async throws {
        let f = try Fixture()
        let (first, second) = (RecordingLink(), RecordingLink())
        let a = try await f.connect("alice", first, offer: RoomMediaTwin.offer("send audio 0"),
                                    tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)])
        await f.service.participant(a.participant.sid, path: .media, reachable: false)
        f.clock.advance(by: RoomService.reconnectWindow)
        let again = try await f.service.connect(accountSid: f.accountSid, identity: "alice", room: "standup",
                                                offer: RoomMediaTwin.offer("send audio 0"),
                                                tracks: [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)],
                                                reconnect: a.participant.sid, link: second)
        await f.service.settle()
        #expect(again.participant.sid != a.participant.sid, "30 s passed: a new participant")
        #expect(first.removals == [.participantDuplicateIdentity])
        f.close()
    }
}
