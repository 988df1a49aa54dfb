import AccessToken
import AudioDevices
import Foundation
import HTTPWire
import ParleyClientCore
import ParleyStore
import ParleyNet
import ParleyCore
import ParleyServer
import ParleyTestSupport
@testable import ParleyVideo
import Synchronization
import Testing
import WebRTC

/// The video SDK against a real in-process `parley-server` (its signaling WebSocket, its room
/// service and media socket): two clients join one group room, each sees the other arrive with
/// its published tracks and is subscribed to them, the first leaving is seen by the second, and
/// a token without a video grant is refused with 20106.
@Suite(.serialized) struct RoomConnectTests {
    /// Every delegate call, in order, as text.
    final class Recorder: RoomDelegate, RemoteParticipantDelegate, LocalParticipantDelegate {
        let log = Mutex<[String]>([])

        func record(_ line: String) { log.withLock { $0.append(line) } }
        var lines: [String] { log.withLock { $0 } }

        /// Waits (up to `seconds`) until a line satisfies `match`.
        func wait(seconds: Int = 10, for match: @escaping (String) -> Bool) async -> Bool {
            for _ in 0..<(seconds * 100) {
                if lines.contains(where: match) { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return false
        }

        func roomDidConnect(room: Room) {
            record("connected \(room.name) \(room.remoteParticipants.map(\.identity))")
            room.localParticipant?.delegate = self
            for participant in room.remoteParticipants { participant.delegate = self }
        }
        func roomDidFailToConnect(room: Room, error: ParleyError) { record("failed \(error.code.rawValue)") }
        func roomDidDisconnect(room: Room, error: ParleyError?) { record("disconnected \(error?.code.rawValue ?? 0)") }
        func roomIsReconnecting(room: Room, error: ParleyError) { record("reconnecting \(error.code.rawValue)") }
        func roomDidReconnect(room: Room) { record("reconnected") }
        func participantDidConnect(room: Room, participant: RemoteParticipant) {
            participant.delegate = self
            record("participant \(participant.identity) \(participant.trackPublications.map(\.trackName))")
        }
        func participantDidDisconnect(room: Room, participant: RemoteParticipant) { record("left \(participant.identity)") }
        func remoteParticipant(_ participant: RemoteParticipant, didEnable publication: RemoteTrackPublication) {
            record("\(participant.identity) enabled \(publication.trackName)")
        }
        func remoteParticipant(_ participant: RemoteParticipant, didDisable publication: RemoteTrackPublication) {
            record("\(participant.identity) disabled \(publication.trackName)")
        }
        func remoteParticipant(_ participant: RemoteParticipant, didPublish publication: RemoteTrackPublication) {
            record("\(participant.identity) published \(publication.trackName)")
        }
        func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
            record("subscribed \(participant.identity) \(publication.trackName) \(publication.kind.rawValue)")
        }
        func localParticipant(_ participant: LocalParticipant, didPublishTrackNamed trackName: String, trackSid: String) {
            record("published \(trackName) \(trackSid.prefix(2))")
        }
    }

    private static func token(_ server: PlatformServer, _ identity: String, video: Bool = true) throws -> String {
        try InProcessPlatform.token(server, identity: identity,
                                    grants: video ? [.video(VideoGrant(room: "stand-up"))] : [.voice(VoiceGrant(incomingAllow: true))])
    }

    @Test(.timeLimit(.minutes(1))) func twoClientsSeeEachOtherComeAndGo() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let (alice, bob) = (Recorder(), Recorder())
        let aliceRoom = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "alice")) { builder in
            builder.roomName = "stand-up"
            builder.edge = edge
            builder.audioTracks = [LocalAudioTrack(name: "alice-mic")]
        }, delegate: alice)
        #expect(aliceRoom.state == .connected && aliceRoom.name == "stand-up" && aliceRoom.sid?.hasPrefix("RM") == true)
        #expect(aliceRoom.localParticipant?.identity == "alice")
        #expect(await alice.wait { $0 == "published alice-mic MT" }, "\(alice.lines)")

        let bobRoom = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "bob")) { builder in
            builder.roomName = "stand-up"
            builder.edge = edge
            builder.audioTracks = [LocalAudioTrack(name: "bob-mic")]
        }, delegate: bob)
        #expect(await bob.wait { $0 == "connected stand-up [\"alice\"]" }, "\(bob.lines)")
        #expect(bobRoom.remoteParticipants.first?.trackPublications.map(\.trackName) == ["alice-mic"])
        // bob arrives, then his track is published (the server announces the participant first).
        #expect(await alice.wait { $0 == "bob published bob-mic" }, "\(alice.lines)")
        #expect(alice.lines.firstIndex { $0.hasPrefix("participant bob") } ?? .max < alice.lines.firstIndex(of: "bob published bob-mic") ?? 0, "\(alice.lines)")
        #expect(await alice.wait { $0 == "subscribed bob bob-mic audio" }, "\(alice.lines)")
        #expect(await bob.wait { $0 == "subscribed alice alice-mic audio" }, "\(bob.lines)")
        #expect(aliceRoom.remoteParticipants.first?.audioTracks.first?.isTrackSubscribed == true)

        bobRoom.disconnect()
        #expect(await bob.wait { $0 == "disconnected 0" }, "\(bob.lines)")
        #expect(await alice.wait { $0 == "left bob" }, "\(alice.lines)")
        #expect(aliceRoom.remoteParticipants.isEmpty && bobRoom.state == .disconnected)
        aliceRoom.disconnect()
        #expect(await alice.wait { $0 == "disconnected 0" })
    }

    /// Collects a data track's messages.
    final class Inbox: RemoteDataTrackDelegate, RemoteParticipantDelegate {
        let messages = Mutex<[String]>([])

        func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
            publication.remoteDataTrack?.delegate = self
        }
        func remoteDataTrack(_ track: RemoteDataTrack, didReceiveString message: String) {
            messages.withLock { $0.append("\(track.name): \(message)") }
        }
        func remoteDataTrack(_ track: RemoteDataTrack, didReceiveData message: Data) {
            messages.withLock { $0.append("\(track.name): \(message.count) bytes") }
        }
    }

    @Test(.timeLimit(.minutes(1))) func dataTrackMessagesArriveInOrder() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let chat = LocalDataTrack(name: "chat")
        let cursor = LocalDataTrack(name: "cursor", isOrdered: false, maxRetransmits: 0)
        let alice = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "alice")) { builder in
            builder.roomName = "stand-up"
            builder.edge = edge
            builder.dataTracks = [chat, cursor]
        })
        let inbox = Inbox()
        let recorder = Recorder()
        let bob = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "bob")) {
            $0.roomName = "stand-up"; $0.edge = edge
        }, delegate: recorder)
        for participant in bob.remoteParticipants { participant.delegate = inbox }
        // bob is subscribed when room.joined lists alice's track, or just after.
        for _ in 0..<500 where bob.remoteParticipants.first?.dataTracks.contains(where: { $0.remoteDataTrack == nil }) != false {
            try await Task.sleep(for: .milliseconds(10))
        }
        let publications = try #require(bob.remoteParticipants.first?.dataTracks)
        #expect(publications.map(\.trackName) == ["chat", "cursor"] && publications.allSatisfy(\.isTrackSubscribed))
        for publication in publications { publication.remoteDataTrack?.delegate = inbox }
        for n in 1...20 {
            chat.send("message \(n)")
            cursor.send("x \(n)")
        }
        chat.send(Data(repeating: 7, count: 3_000))
        let ordered = (1...20).map { "chat: message \($0)" } + ["chat: 3000 bytes"]
        let unordered = Set((1...20).map { "cursor: x \($0)" })
        for _ in 0..<1_000 where inbox.messages.withLock({ $0.count }) < ordered.count + unordered.count {
            try await Task.sleep(for: .milliseconds(10))
        }
        let got = inbox.messages.withLock { $0 }
        #expect(got.filter { $0.hasPrefix("chat") } == ordered, "the ordered track keeps its order")
        #expect(Set(got.filter { $0.hasPrefix("cursor") }) == unordered, "the unordered one loses nothing on loopback")
        alice.disconnect()
        bob.disconnect()
    }

    @Test(.timeLimit(.minutes(1))) func aFullRoomAndACompletedRoomEndTheConnection() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let created = try await platform.restPost("/v1/Rooms", form: [("UniqueName", "stand-up"), ("MaxParticipants", "1")])
        let roomSid = try #require(created["sid"] as? String)
        let alice = Recorder()
        let room = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "alice")) {
            $0.roomName = "stand-up"; $0.edge = edge
        }, delegate: alice)
        #expect(room.sid == roomSid)
        let bob = Recorder()
        let full = ConnectOptions(token: try Self.token(platform.server, "bob")) { $0.roomName = "stand-up"; $0.edge = edge }
        await #expect(throws: ParleyError.self) { _ = try await Video.connect(full, delegate: bob) }
        #expect(await bob.wait { $0 == "failed 53105" }, "\(bob.lines)")

        _ = try await platform.restPost("/v1/Rooms/\(roomSid)", form: [("Status", "completed")])
        #expect(await alice.wait { $0 == "disconnected 53118" }, "\(alice.lines)")
        #expect(room.state == .disconnected)
    }

    @Test(.timeLimit(.minutes(1))) func aDroppedSignalingConnectionReconnects() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let alice = Recorder()
        let room = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "alice")) {
            $0.roomName = "stand-up"; $0.edge = edge
        }, delegate: alice)
        let channel = try #require(room.inner.withLock { $0.channel })
        await channel.simulateDrop()
        #expect(await alice.wait { $0 == "reconnecting 53001" }, "\(alice.lines)")
        #expect(await alice.wait { $0 == "reconnected" }, "\(alice.lines)")
        #expect(room.state == .connected)
        // Still in the room: a newcomer sees alice.
        let bob = Recorder()
        _ = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "bob")) {
            $0.roomName = "stand-up"; $0.edge = edge
        }, delegate: bob)
        #expect(await bob.wait { $0 == "connected stand-up [\"alice\"]" }, "\(bob.lines)")
        room.disconnect()
    }

    /// Media cut off (every datagram dropped): after ICE's disconnected timeout (8 s) the room is
    /// reconnecting (53405) and restarts ICE; once the path is back, it reconnects and the
    /// others' audio flows again.
    @Test(.timeLimit(.minutes(1))) func aLostMediaPathComesBackWithAnICERestart() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let alice = Recorder()
        let room = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "alice")) {
            $0.roomName = "stand-up"; $0.edge = edge
        }, delegate: alice)
        let tone = try ToneAudioDevice(frequency: 500)
        let bob = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "bob")) { builder in
            builder.roomName = "stand-up"
            builder.edge = edge
            builder.audioTracks = [LocalAudioTrack(name: "mic", device: tone)]
        })
        #expect(await alice.wait { $0 == "subscribed bob mic audio" }, "\(alice.lines)")
        let peer = try #require(room.inner.withLock { $0.media?.peer })
        await peer.simulateNetworkOutage(true)
        #expect(await alice.wait(seconds: 20) { $0 == "reconnecting 53405" }, "\(alice.lines)")
        await peer.simulateNetworkOutage(false)
        #expect(await alice.wait(seconds: 20) { $0 == "reconnected" }, "\(alice.lines)")
        let track = try #require(room.remoteParticipants.first?.audioTracks.first?.remoteAudioTrack)
        let before = track.packetsReceived
        #expect(await alice.wait { _ in track.packetsReceived > before + 25 }, "bob's audio flows again")
        room.disconnect()
        bob.disconnect()
    }

    /// Publishing after connecting: an audio track (its tone then reaches the other), enabling
    /// and disabling it, and a data track whose message arrives.
    @Test(.timeLimit(.minutes(1))) func tracksPublishedAfterConnectingReachTheOthers() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let room = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "alice")) {
            $0.roomName = "stand-up"; $0.edge = edge
        })
        let bob = Recorder()
        let inbox = Inbox()
        let bobRoom = try await Video.connect(ConnectOptions(token: try Self.token(platform.server, "bob")) {
            $0.roomName = "stand-up"; $0.edge = edge
        }, delegate: bob)
        #expect(await bob.wait { $0.hasPrefix("connected stand-up") }, "\(bob.lines)")
        let mic = LocalAudioTrack(name: "late-mic", device: try ToneAudioDevice(frequency: 700))
        let sid = try await room.localParticipant!.publishAudioTrack(mic)
        #expect(sid.hasPrefix("MT") && room.localParticipant?.publishedTrackSid(named: "late-mic") == sid)
        #expect(await bob.wait { $0 == "alice published late-mic" }, "\(bob.lines)")
        #expect(await bob.wait { $0 == "subscribed alice late-mic audio" }, "\(bob.lines)")
        let heard = try #require(bobRoom.remoteParticipants.first?.publication(sid)?.remoteAudioTrack)
        #expect(await bob.wait { _ in heard.packetsReceived > 25 }, "the tone arrives")
        mic.isEnabled = false
        #expect(await bob.wait { $0 == "alice disabled late-mic" }, "\(bob.lines)")
        mic.isEnabled = true
        #expect(await bob.wait { $0 == "alice enabled late-mic" }, "\(bob.lines)")

        bobRoom.remoteParticipants.first?.delegate = inbox
        let notes = LocalDataTrack(name: "notes")
        try await room.localParticipant!.publishDataTrack(notes)
        // Messages reach the subscribers of the moment: wait until bob is one.
        for _ in 0..<500 where bobRoom.remoteParticipants.first?.dataTracks.first?.isTrackSubscribed != true {
            try await Task.sleep(for: .milliseconds(10))
        }
        notes.send("written after joining")
        for _ in 0..<500 where inbox.messages.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(inbox.messages.withLock { $0 } == ["notes: written after joining"])
        room.disconnect()
        bobRoom.disconnect()
    }

    @Test(.timeLimit(.minutes(1))) func aTokenWithoutAVideoGrantIsRefused() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let recorder = Recorder()
        let options = ConnectOptions(token: try Self.token(platform.server, "mallory", video: false)) { $0.roomName = "stand-up"; $0.edge = edge }
        await #expect(throws: ParleyError.self) { _ = try await Video.connect(options, delegate: recorder) }
        #expect(await recorder.wait { $0 == "failed 20106" }, "\(recorder.lines)")
    }
}
