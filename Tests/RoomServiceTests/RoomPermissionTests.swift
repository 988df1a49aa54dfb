import Foundation
import ParleyCore
import ParleyStore
import ParleyTestSupport
import RoomService
import Signaling
import Testing

/// Parley's finer video grants through the room service: a participant that may not publish is
/// refused (20106) when it describes a track, and nothing of it is published; one that may not
/// subscribe is routed nothing and its `room.subscribe` fails with 20106; data tracks need their
/// own grant.
@Suite struct RoomPermissionTests {
    typealias Fixture = RoomSessionTests.Fixture
    static let offer = RoomMediaTwin.offer("send audio 0", "send video 1", "recv audio 2", "recv video 3")
    static let mic = [RoomTrackInfo(mid: "0", name: "mic", kind: .audio)]

    static func connect(_ f: Fixture, _ identity: String, _ link: RecordingLink, tracks: [RoomTrackInfo],
                        _ permissions: RoomPermissions) async throws(ParleyError) -> RoomJoined {
        let joined = try await f.service.connect(accountSid: f.accountSid, identity: identity, room: "standup", offer: offer,
                                                 tracks: tracks, permissions: permissions, ref: "j", link: link)
        await f.service.settle()
        return joined
    }

    @Test func grantsDecideWhatAParticipantPublishesAndReceives() async throws {
        let f = try Fixture()
        defer { f.close() }
        let (alice, viewer, mute) = (RecordingLink(), RecordingLink(), RecordingLink())
        let a = try await Self.connect(f, "alice", alice, tracks: Self.mic, .all)
        // Describing a track without the publish grant refuses the join; with no tracks it joins.
        await #expect(throws: ParleyError.self) {
            _ = try await Self.connect(f, "mute", mute, tracks: Self.mic, RoomPermissions(canPublish: false))
        }
        let joined = try await Self.connect(f, "mute", mute, tracks: [], RoomPermissions(canPublish: false))
        #expect(joined.participant.tracks.isEmpty)
        do {
            _ = try await f.service.publish(participantSid: joined.participant.sid, name: "camera", kind: .video)
            Issue.record("published without the grant")
        } catch {
            #expect(error.code == .accessTokenGrantsInvalid)
        }
        // Data needs its own grant.
        let data = [RoomTrackInfo(name: "chat", kind: .data)]
        await #expect(throws: ParleyError.self) {
            _ = try await Self.connect(f, "nodata", RecordingLink(), tracks: data, RoomPermissions(canPublishData: false))
        }
        // Without the subscribe grant: no subscription, nothing routed to it, room.subscribe refused.
        let v = try await Self.connect(f, "viewer", viewer, tracks: [], RoomPermissions(canSubscribe: false))
        #expect(v.subscriptions.isEmpty)
        #expect(await f.service.subscribedTracks(roomSid: v.room.sid, participantSid: v.participant.sid)?.isEmpty == true)
        let micSid = try #require(a.participant.tracks.first?.sid)
        _ = viewer.take()
        await f.service.subscribe(participantSid: v.participant.sid, trackSid: micSid, ref: "s1")
        await f.service.settle()
        #expect(viewer.take() == [.roomSubscriptionFailed(RoomSubscriptionFailed(
            trackSid: micSid, code: 20106, message: "the token's video grant does not allow subscribing"))])
        let viewerSession = (v.answer ?? "").replacingOccurrences(of: "answer of ", with: "")
        #expect(!f.media.routes.contains { $0.slot.session == viewerSession && $0.source != nil }, "\(f.media.routeLog)")
        _ = mute.take()
    }
}
