import ParleyCore
import ParleyStore
import ParleyTestSupport
import RoomService
import SFU
import Signaling
import Testing
import VideoREST

/// Published tracks and subscriptions: names checked, callbacks in order, subscribe rules
/// applied, a leaving participant's tracks removed before it disconnects.
@Suite struct RoomTrackTests {
    @Test func tracksArePublishedSubscribedByRulesAndRemovedWithTheirPublisher() async throws {
        let f = try RoomLifecycleTests.Fixture()
        let room = try await f.service.createRoom(f.request("tracks"))
        let link = RoomParticipantTests.Link()
        let (_, alice) = try await f.service.join(accountSid: f.accountSid, identity: "alice", room: "tracks", link: link)
        let (_, bob) = try await f.service.join(accountSid: f.accountSid, identity: "bob", room: "tracks", link: link)
        let mic = try await f.service.publish(participantSid: alice.sid, name: "mic", kind: .audio, mid: "0")
        let camera = try await f.service.publish(participantSid: alice.sid, name: "camera", kind: .video, priority: "high")
        #expect(SID.isValid(mic.sid, prefix: "MT") && mic.enabled)
        for (name, priority, code) in [("mic", "standard", ParleyError.Code.trackNameIsDuplicated),
                                       ("", "standard", .trackNameInvalid),
                                       (String(repeating: "x", count: 129), "standard", .trackNameTooLong),
                                       ("screen", "urgent", .trackInvalid)] {
            do {
                _ = try await f.service.publish(participantSid: alice.sid, name: name, kind: .video, priority: priority)
                Issue.record("published \(name) with priority \(priority)")
            } catch {
                #expect(error.code == code)
            }
        }
        #expect(try f.store.publishedTracks(participantSid: alice.sid).map(\.name) == ["mic", "camera"])
        #expect(await f.service.subscribedTracks(roomSid: room.sid, participantSid: bob.sid)?.map(\.name) == ["mic", "camera"])
        #expect(await f.service.subscribedTracks(roomSid: room.sid, participantSid: alice.sid) == [], "nobody receives their own")

        let videoOnly = SubscribeRules(rules: [.init(action: .include, all: true), .init(action: .exclude, kind: "audio")])
        _ = await f.service.updateSubscribeRules(roomSid: room.sid, participantSid: bob.sid, videoOnly)
        #expect(await f.service.subscribedTracks(roomSid: room.sid, participantSid: bob.sid)?.map(\.trackSid) == [camera.sid])
        let stored = try #require(try f.store.subscribeRules(participantSid: bob.sid))
        #expect(stored.roomSid == room.sid && SubscribeRulesJSON.parse(stored.rules) == videoOnly, "the store keeps them")

        #expect(await f.service.setEnabled(trackSid: mic.sid, false))
        #expect(await !f.service.setEnabled(trackSid: mic.sid, false), "already disabled")
        #expect(try f.store.publishedTracks(participantSid: alice.sid).first?.enabled == false)
        #expect(await f.service.unpublish(trackSid: camera.sid))
        await f.service.leave(participantSid: alice.sid)
        #expect(try f.store.publishedTracks(participantSid: alice.sid).isEmpty)

        let full = try await f.callbacks(9)
        #expect(full.map { $0.parameters["StatusCallbackEvent"] ?? "" } == [
            "room-created", "participant-connected", "participant-connected", "track-added", "track-added",
            "track-disabled", "track-removed", "track-removed", "participant-disconnected",
        ])
        #expect(full.map { $0.parameters["SequenceNumber"] ?? "" } == (0..<9).map(String.init))
        #expect(full[3].parameters["TrackSid"] == mic.sid && full[3].parameters["TrackKind"] == "audio"
                    && full[3].parameters["TrackName"] == "mic" && full[3].parameters["ParticipantIdentity"] == "alice")
        #expect(full[7].parameters["TrackSid"] == mic.sid, "the leaving participant's remaining track goes first")
        await f.close()
    }

    @Test func anAudioOnlyRoomRefusesVideoWith53125AndAnswersOnlyTheRoomsVideoCodecs() async throws {
        let f = try RoomSessionTests.Fixture()
        var request = RoomCreateRequest(accountSid: f.accountSid, uniqueName: "radio")
        request.audioOnly = true
        _ = try await f.service.createRoom(request)
        let offer = RoomMediaTwin.offer("send audio 0", "send video 1", "recv audio 2")
        do {
            _ = try await f.connect("alice", RecordingLink(), offer: offer, tracks: RoomSessionTests.micAndCamera, room: "radio")
            Issue.record("published video in an audio-only room")
        } catch {
            #expect(error.code == .roomTrackKindNotSupported && error.code.rawValue == 53125)
        }
        #expect(f.media.videoCodecs.isEmpty, "refused before a session was opened")
        // The mic alone is welcome; a re-offer that adds the camera is refused the same way.
        let alice = RecordingLink()
        let a = try await f.connect("alice", alice, offer: offer, tracks: [RoomSessionTests.micAndCamera[0]], room: "radio")
        do {
            try await f.service.renegotiate(participantSid: a.participant.sid, offer: offer, tracks: RoomSessionTests.micAndCamera)
            Issue.record("a re-offer published video in an audio-only room")
        } catch {
            #expect(error.code.rawValue == 53125)
        }
        #expect(await f.service.publishedTracks(participantSid: a.participant.sid).map(\.name) == ["mic"])

        // An H.264 room's sessions are answered with H.264 only, also on re-offers; ad hoc rooms with VP8.
        var h264 = RoomCreateRequest(accountSid: f.accountSid, uniqueName: "h264")
        h264.videoCodecs = ["H264"]
        _ = try await f.service.createRoom(h264)
        let b = try await f.connect("bob", RecordingLink(), offer: offer, tracks: RoomSessionTests.micAndCamera, room: "h264")
        try await f.service.renegotiate(participantSid: b.participant.sid, offer: offer, tracks: RoomSessionTests.micAndCamera)
        _ = try await f.connect("carol", RecordingLink(), offer: offer, tracks: RoomSessionTests.micAndCamera, room: "adhoc")
        #expect(f.media.videoCodecs == ["S1": [["VP8"]], "S2": [["H264"], ["H264"]], "S3": [["VP8"]]])
        f.close()
    }

    @Test func aRoomsTrackCapRefusesWith53203AndASubscriptionCapWith53305() async throws {
        let f = try RoomSessionTests.Fixture { $0.maxTracksPerRoom = 2; $0.maxSubscriptionsPerParticipant = 1 }
        let offer = RoomMediaTwin.offer("send audio 0", "send video 1", "recv audio 2", "recv video 3")
        let a = try await f.connect("alice", RecordingLink(), offer: offer, tracks: RoomSessionTests.micAndCamera)
        do {
            _ = try await f.connect("bob", RecordingLink(), offer: offer, tracks: [RoomSessionTests.micAndCamera[0]])
            Issue.record("a third track was published in a room capped at two")
        } catch {
            #expect(error.code.rawValue == 53203)
        }
        // bob receives one track: alice's mic (published first); her camera waits, and asking for it fails.
        let bob = RecordingLink()
        let b = try await f.connect("bob", bob, offer: offer, tracks: [])
        #expect(b.subscriptions.map(\.trackSid) == [RoomSessionTests.sid(a, "mic")])
        _ = bob.take()
        await f.service.subscribe(participantSid: b.participant.sid, trackSid: RoomSessionTests.sid(a, "camera"), ref: "s1")
        await f.service.settle()
        #expect(bob.take().last == .roomSubscriptionFailed(RoomSubscriptionFailed(
            trackSid: RoomSessionTests.sid(a, "camera"), code: 53305, message: "at most 1 subscriptions")))
        // Once the mic is unpublished, the camera takes its place.
        await f.service.unpublish(trackSid: RoomSessionTests.sid(a, "mic"))
        await f.service.settle()
        #expect(bob.take().contains(.roomSubscribed(RoomSubscribed(trackSid: RoomSessionTests.sid(a, "camera"), mid: "3",
                                                                   participantSid: a.participant.sid))))
        f.close()
    }
}
