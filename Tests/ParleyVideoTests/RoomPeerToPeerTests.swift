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

/// A peer-to-peer room with the SDK: two participants connect their media to each other (one
/// connection per pair, negotiated through the server's `room.peerOffer` / `room.peerAnswer`
/// relay); each hears the other's tone and decodes the other's moving test pattern, and the
/// server's media socket carries none of it.
@Suite(.serialized) struct RoomPeerToPeerTests {
    final class Peer: RoomDelegate, RemoteParticipantDelegate, AudioSink, VideoRenderer {
        let samples = Mutex<[Int16]>([])
        let frames = Mutex<[UInt32]>([])
        func roomDidConnect(room: Room) { for participant in room.remoteParticipants { participant.delegate = self } }
        func roomDidFailToConnect(room: Room, error: ParleyError) {}
        func roomDidDisconnect(room: Room, error: ParleyError?) {}
        func participantDidConnect(room: Room, participant: RemoteParticipant) { participant.delegate = self }
        func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
            publication.remoteAudioTrack?.addSink(self)
            publication.remoteVideoTrack?.addRenderer(self)
        }
        func renderSamples(_ frame: [Int16], sampleRate: Int) { samples.withLock { $0 += frame } }
        func renderFrame(_ frame: I420Frame) {
            if let number = TestPattern.frameNumber(in: frame) { frames.withLock { $0.append(number) } }
        }
    }

    @Test(.timeLimit(.minutes(1))) func twoParticipantsConnectTheirMediaDirectly() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let created = try await platform.restPost("/v1/Rooms", form: [("UniqueName", "huddle"), ("Type", "peer-to-peer")])
        #expect(created["type"] as? String == "peer-to-peer")
        let setup: [(String, Double)] = [("alice", 440), ("bob", 880)]
        var peers: [String: Peer] = [:]
        var rooms: [Room] = []
        for (identity, frequency) in setup {
            let peer = Peer()
            peers[identity] = peer
            let token = try InProcessPlatform.token(platform.server, identity: identity, grants: [.video(VideoGrant(room: "huddle"))])
            let tone = try ToneAudioDevice(frequency: frequency)
            let camera = PacedVideoSource(TestPattern(width: 320, height: 180, framesPerSecond: 15))
            rooms.append(try await Video.connect(ConnectOptions(token: token) { builder in
                builder.roomName = "huddle"
                builder.edge = edge
                builder.audioTracks = [LocalAudioTrack(name: "mic", device: tone)]
                builder.videoTracks = [LocalVideoTrack(name: "camera", source: camera)]
            }, delegate: peer))
        }
        for _ in 0..<1_000 {
            if peers.values.allSatisfy({ $0.samples.withLock { $0.count } >= 96_000 && $0.frames.withLock { $0.count } >= 15 }) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        for (me, other) in [("alice", 880.0), ("bob", 440.0)] {
            let peer = try #require(peers[me])
            let samples = peer.samples.withLock { $0 }, frames = peer.frames.withLock { $0 }
            #expect(samples.count >= 96_000 && frames.count >= 15, "\(me): \(samples.count) samples, \(frames.count) frames")
            let heard = heardFrequency(samples)
            #expect(abs(heard - other) < 15, "\(me) hears \(heard) Hz")
            #expect(frames == frames.sorted() && Set(frames).count == frames.count, "\(me)'s frames advance")
        }
        #expect(rooms.allSatisfy { $0.state == .connected })
        let datagrams = try await platform.metric("parley_media_datagrams_received_total")
        #expect(datagrams == 0, "the server's media socket received \(datagrams.map { "\($0)" } ?? "-") datagrams")
        for room in rooms { room.disconnect() }
    }
}
