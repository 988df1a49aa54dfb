import AccessToken
import AudioCore
import AudioDevices
import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
@testable import ParleyVideo
import Synchronization
import Testing

/// Audio through a real in-process `parley-server` with the SDK: three participants in one
/// group room, each publishing a tone of its own from a `ToneAudioDevice` (Opus through the SFU,
/// as the app's microphone would); each hears the other two at their frequencies through its
/// `RemoteAudioTrack` sinks, and a loud tone makes its publisher the dominant speaker.
@Suite(.serialized) struct RoomAudioTests {
    /// Keeps what a remote audio track plays.
    final class Capture: AudioSink {
        let samples = Mutex<[Int16]>([])
        func renderSamples(_ frame: [Int16], sampleRate: Int) { samples.withLock { $0 += frame } }
        var count: Int { samples.withLock { $0.count } }
    }

    /// Attaches a `Capture` to every audio track a participant subscribes to, by publisher identity.
    final class Listener: RoomDelegate, RemoteParticipantDelegate {
        let captures = Mutex<[String: Capture]>([:])
        let speakers = Mutex<[String?]>([])

        func roomDidConnect(room: Room) { for participant in room.remoteParticipants { participant.delegate = self } }
        func roomDidFailToConnect(room: Room, error: ParleyError) {}
        func roomDidDisconnect(room: Room, error: ParleyError?) {}
        func participantDidConnect(room: Room, participant: RemoteParticipant) { participant.delegate = self }
        func dominantSpeakerDidChange(room: Room, participant: RemoteParticipant?) {
            speakers.withLock { $0.append(participant?.identity) }
        }
        func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
            guard let track = publication.remoteAudioTrack else { return }
            let capture = Capture()
            track.addSink(capture)
            captures.withLock { $0[participant.identity] = capture }
        }

        func capture(_ identity: String) -> Capture? { captures.withLock { $0[identity] } }
    }

    @Test(.timeLimit(.minutes(1))) func threeParticipantsHearEachOthersTones() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let tones: [(String, Double, Double)] = [("alice", 440, -30), ("bob", 660, -30), ("carol", 1_000, -6)]
        var rooms: [Room] = []
        var listeners: [String: Listener] = [:]
        for (identity, frequency, level) in tones {
            let listener = Listener()
            listeners[identity] = listener
            let token = try InProcessPlatform.token(platform.server, identity: identity, grants: [.video(VideoGrant(room: "band"))])
            let device = try ToneAudioDevice(frequency: frequency, levelDBFS: level)
            rooms.append(try await Video.connect(ConnectOptions(token: token) { builder in
                builder.roomName = "band"
            builder.edge = edge
                builder.audioTracks = [LocalAudioTrack(name: "mic", device: device)]
                builder.isDominantSpeakerEnabled = true
            }, delegate: listener))
        }
        // Two seconds of everyone's audio at everyone else.
        for _ in 0..<1_000 {
            let enough = tones.allSatisfy { me, _, _ in
                tones.filter { $0.0 != me }.allSatisfy { other, _, _ in (listeners[me]?.capture(other)?.count ?? 0) >= 96_000 }
            }
            if enough { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        for (me, _, _) in tones {
            for (other, frequency, _) in tones where other != me {
                let samples = try #require(listeners[me]?.capture(other)?.samples.withLock { $0 }, "\(me) hears nothing of \(other)")
                #expect(samples.count >= 96_000, "\(me) got \(samples.count) samples of \(other)")
                let heard = heardFrequency(samples)
                #expect(abs(heard - frequency) < 15, "\(me) hears \(other) at \(heard) Hz, not \(frequency)")
            }
        }
        // carol is 24 dB louder than the others: she speaks.
        #expect(listeners["alice"]?.speakers.withLock { $0 }.last == "carol", "\(listeners["alice"]?.speakers.withLock { $0 } ?? [])")
        for room in rooms { room.disconnect() }
    }
}
