import AccessToken
import AudioDevices
import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
@testable import ParleyVideo
import Synchronization
import Testing
import VideoCore

/// Unpublishing through a real in-process `parley-server` with the SDK (docs/signaling.md §12,
/// Unpublishing): three participants each publish a moving test pattern, a tone and a data
/// track; alice unpublishes all three — the other two hear `didUnsubscribeFrom` then
/// `didUnpublish` for exactly those, the rest of the room's media keeps flowing, and the REST
/// API no longer lists them — then publishes them again under new SIDs, and they arrive again.
@Suite(.serialized) struct RoomUnpublishTests {
    /// What one participant sees of the others: each callback as a line, and what each
    /// subscribed track (by SID) delivers.
    final class Watcher: RoomDelegate, RemoteParticipantDelegate, RemoteDataTrackDelegate {
        let log = Mutex<[String]>([])
        let screens = Mutex<[String: RoomVideoTests.Screen]>([:])
        let captures = Mutex<[String: RoomAudioTests.Capture]>([:])
        let messages = Mutex<[String]>([])

        func roomDidConnect(room: Room) { for participant in room.remoteParticipants { participant.delegate = self } }
        func roomDidFailToConnect(room: Room, error: ParleyError) {}
        func roomDidDisconnect(room: Room, error: ParleyError?) {}
        func participantDidConnect(room: Room, participant: RemoteParticipant) { participant.delegate = self }
        func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
            let sid = publication.trackSid
            if let track = publication.remoteVideoTrack {
                let screen = RoomVideoTests.Screen()
                track.addRenderer(screen)
                screens.withLock { $0[sid] = screen }
            }
            if let track = publication.remoteAudioTrack {
                let capture = RoomAudioTests.Capture()
                track.addSink(capture)
                captures.withLock { $0[sid] = capture }
            }
            publication.remoteDataTrack?.delegate = self
            record("subscribed \(participant.identity) \(publication.trackName) \(sid)")
        }
        func remoteParticipant(_ participant: RemoteParticipant, didUnsubscribeFrom publication: RemoteTrackPublication) {
            record("unsubscribed \(participant.identity) \(publication.trackName) \(publication.trackSid)")
        }
        func remoteParticipant(_ participant: RemoteParticipant, didUnpublish publication: RemoteTrackPublication) {
            record("unpublished \(participant.identity) \(publication.trackName) \(publication.trackSid)")
        }
        func remoteDataTrack(_ track: RemoteDataTrack, didReceiveString message: String) {
            messages.withLock { $0.append("\(track.sid) \(message)") }
        }

        private func record(_ line: String) { log.withLock { $0.append(line) } }
        var all: [String] { log.withLock { $0 } }
        func frames(_ sid: String) -> Int { screens.withLock { $0[sid] }?.count ?? 0 }
        func samples(_ sid: String) -> Int { captures.withLock { $0[sid] }?.count ?? 0 }
        /// The lines about other participants' tracks, in the order they came.
        func lines(about sids: Set<String>) -> [String] { all.filter { sids.contains(String($0.split(separator: " ").last ?? "")) } }
    }

    /// One participant's own tracks.
    struct Tracks {
        let audio: LocalAudioTrack
        let video: LocalVideoTrack
        let data: LocalDataTrack
    }

    @Test(.timeLimit(.minutes(2))) func aParticipantUnpublishesItsTracksAndPublishesThemAgain() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let people: [(String, Double)] = [("alice", 440), ("bob", 660), ("carol", 1_000)]
        var rooms: [String: Room] = [:]
        var watchers: [String: Watcher] = [:]
        var tracks: [String: Tracks] = [:]
        for (identity, frequency) in people {
            let watcher = Watcher()
            watchers[identity] = watcher
            let own = Tracks(audio: LocalAudioTrack(name: "mic", device: try ToneAudioDevice(frequency: frequency, levelDBFS: -20)),
                             video: LocalVideoTrack(name: "camera", source: PacedVideoSource(TestPattern(width: 320, height: 180, framesPerSecond: 15))),
                             data: LocalDataTrack(name: "chat"))
            tracks[identity] = own
            let token = try InProcessPlatform.token(platform.server, identity: identity, grants: [.video(VideoGrant(room: "stage"))])
            rooms[identity] = try await Video.connect(ConnectOptions(token: token) { builder in
                builder.roomName = "stage"
                builder.edge = edge
                builder.audioTracks = [own.audio]
                builder.videoTracks = [own.video]
                builder.dataTracks = [own.data]
            }, delegate: watcher)
        }
        let (alice, bob, carol) = try (#require(rooms["alice"]), #require(rooms["bob"]), #require(rooms["carol"]))
        let aliceTracks = try #require(tracks["alice"])
        let local = try #require(alice.localParticipant)
        let others = [("bob", bob), ("carol", carol)]
        func sid(_ room: Room, _ identity: String, _ name: String) -> String? {
            room.remoteParticipants.first { $0.identity == identity }.flatMap { p in
                (p.audioTracks + p.videoTracks + p.dataTracks).first { $0.trackName == name && $0.isTrackSubscribed }?.trackSid
            }
        }
        func subscribedToEveryone() -> Bool {
            people.allSatisfy { me, _ in
                people.filter { $0.0 != me }.allSatisfy { other, _ in
                    ["mic", "camera", "chat"].allSatisfy { name in rooms[me].flatMap { sid($0, other, name) } != nil }
                }
            }
        }
        try await poll { subscribedToEveryone() }
        #expect(subscribedToEveryone(), "everyone receives everyone's three tracks")
        let old = try ["mic", "camera", "chat"].map { try #require(local.publishedTrackSid(named: $0)) }
        let carolCamera = try #require(sid(bob, "carol", "camera")), bobCamera = try #require(sid(carol, "bob", "camera"))
        let carolMic = try #require(sid(bob, "carol", "mic"))
        try await poll { watchers["bob"]!.frames(carolCamera) >= 10 && watchers["carol"]!.frames(bobCamera) >= 10 }

        // alice unpublishes: video and data the seed's way (Bool, in the background), audio waiting.
        #expect(local.unpublishVideoTrack(aliceTracks.video) && local.unpublishDataTrack(aliceTracks.data))
        #expect(!local.unpublishVideoTrack(aliceTracks.video), "a track no longer published is not unpublished twice")
        try await local.unpublish(aliceTracks.audio)
        #expect(local.audioTracks.isEmpty && local.videoTracks.isEmpty && local.dataTracks.isEmpty)
        #expect(["mic", "camera", "chat"].allSatisfy { local.publishedTrackSid(named: $0) == nil })
        let gone = Set(old)
        for (identity, _) in others {
            let watcher = try #require(watchers[identity])
            try await poll { watcher.lines(about: gone).filter { $0.hasPrefix("unpublished") }.count == 3 }
            let lines = watcher.lines(about: gone)
            for (name, trackSid) in zip(["mic", "camera", "chat"], old) {
                let mine = lines.filter { $0.hasSuffix("alice \(name) \(trackSid)") }
                #expect(mine == ["subscribed alice \(name) \(trackSid)", "unsubscribed alice \(name) \(trackSid)",
                                 "unpublished alice \(name) \(trackSid)"], "\(identity): \(lines)")
            }
            let otherEnds = watcher.all.filter { !$0.hasPrefix("subscribed") && !gone.contains(String($0.split(separator: " ").last ?? "")) }
            #expect(otherEnds.isEmpty, "\(identity) lost nothing else: \(otherEnds)")
            #expect(identity == "bob" ? bob.remoteParticipants.first { $0.identity == "alice" }?.videoTracks.isEmpty == true
                                      : carol.remoteParticipants.first { $0.identity == "alice" }?.dataTracks.isEmpty == true)
        }
        // The rest keeps flowing: bob and carol still see and hear each other, alice sees them.
        let (seen, heard) = (watchers["bob"]!.frames(carolCamera), watchers["bob"]!.samples(carolMic))
        let aliceSees = watchers["alice"]!.frames(try #require(sid(alice, "bob", "camera")))
        try await poll {
            watchers["bob"]!.frames(carolCamera) >= seen + 15 && watchers["bob"]!.samples(carolMic) >= heard + 24_000
                && watchers["alice"]!.frames(sid(alice, "bob", "camera") ?? "") >= aliceSees + 15
        }
        #expect(watchers["bob"]!.frames(carolCamera) >= seen + 15, "bob still decodes carol's camera")
        #expect(watchers["bob"]!.samples(carolMic) >= heard + 24_000, "bob still hears carol")
        #expect(watchers["alice"]!.frames(sid(alice, "bob", "camera") ?? "") >= aliceSees + 15, "alice still sees bob")
        #expect(await alice.getStats().localVideoTrackStats.isEmpty, "alice sends no video")
        // The REST API no longer lists them.
        let roomSid = try #require(alice.sid), aliceSid = try #require(local.sid)
        let listed = try await platform.restGet("/v1/Rooms/\(roomSid)/Participants/\(aliceSid)/PublishedTracks")
        #expect((listed["published_tracks"] as? [[String: Any]])?.isEmpty == true, "\(listed)")

        // alice publishes the three again: new SIDs, received again.
        let mic = try await local.publishAudioTrack(aliceTracks.audio)
        let camera = try await local.publishVideoTrack(aliceTracks.video)
        try await local.publishDataTrack(aliceTracks.data)
        // Messages reach the subscribers whose channel is open: sent once both have it.
        try await poll { others.allSatisfy { _, room in sid(room, "alice", "chat").map { !gone.contains($0) } == true } }
        aliceTracks.data.send("back again")
        #expect(!gone.contains(mic) && !gone.contains(camera) && mic.hasPrefix("MT") && camera.hasPrefix("MT"))
        #expect(local.audioTracks.count == 1 && local.videoTracks.count == 1 && local.dataTracks.count == 1)
        for (identity, room) in others {
            let watcher = try #require(watchers[identity])
            try await poll {
                watcher.frames(camera) >= 20 && watcher.samples(mic) >= 96_000
                    && watcher.messages.withLock { $0 }.contains { $0.hasSuffix(" back again") }
            }
            #expect(watcher.frames(camera) >= 20, "\(identity) decodes alice's camera again")
            let samples = watcher.captures.withLock { $0[mic] }?.samples.withLock { $0 } ?? []
            #expect(samples.count >= 96_000 && abs(heardFrequency(samples) - 440) < 15, "\(identity) hears alice again")
            let chat = try #require(sid(room, "alice", "chat"))
            #expect(!gone.contains(chat) && watcher.messages.withLock { $0 }.contains("\(chat) back again"),
                    "\(identity) gets alice's chat again: \(watcher.messages.withLock { $0 })")
        }
        let again = try await platform.restGet("/v1/Rooms/\(roomSid)/Participants/\(aliceSid)/PublishedTracks")
        let names = ((again["published_tracks"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        #expect(Set(names) == ["mic", "camera", "chat"], "\(again)")
        for room in rooms.values { room.disconnect() }
    }

    /// Polls `condition` every 20 ms, up to 30 s (the test's expectations say what failed).
    private func poll(_ condition: () -> Bool) async throws {
        for _ in 0..<1_500 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
