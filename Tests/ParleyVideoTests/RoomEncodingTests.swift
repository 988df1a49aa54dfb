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

/// `EncodingParameters` through a real in-process `parley-server`: the payload bitrate the SDK
/// sends, measured from `Room.getStats`, stays under the app's caps, and raising them takes
/// effect at once (`LocalParticipant.setEncodingParameters`). The video cap and the server's
/// estimate (REMB, under its publish cap) combine as their minimum.
@Suite(.serialized) struct RoomEncodingTests {
    /// Payload bits per second of the track's first audio or video sender over `packets` packets
    /// from now (by the wall clock between two `getStats`).
    static func sentBitrate(_ room: Room, video: Bool, packets: UInt64) async throws -> Double {
        func sample() async -> (packets: UInt64, bytes: UInt64) {
            let stats = await room.getStats()
            let track = video ? stats.localVideoTrackStats.first : stats.localAudioTrackStats.first
            return (track?.layers.reduce(0) { $0 + $1.packetsSent } ?? 0, track?.bytesSent ?? 0)
        }
        let start = await sample(), started = ContinuousClock.now
        var now = start
        for _ in 0..<2_000 where now.packets < start.packets + packets {
            try await Task.sleep(for: .milliseconds(20))
            now = await sample()
        }
        let elapsed = ContinuousClock.now - started
        try #require(now.packets >= start.packets + packets, "only \(now.packets - start.packets) packets sent")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(now.bytes - start.bytes) * 8 / seconds
    }

    /// Waits until the video encoder aims at `ceiling`.
    static func ceiling(of room: Room, becomes ceiling: Int) async throws -> Int? {
        var seen: Int?
        for _ in 0..<500 {
            seen = room.inner.withLock { $0.videoSenders.first?.bitrateCeiling }
            if seen == ceiling { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return seen
    }

    @Test(.timeLimit(.minutes(2))) func theSentBitrateRespectsTheAppsCapsAndFollowsThemUp() async throws {
        // The server's publish cap makes its REMB 800 kbit/s: the encoders' own ceiling is 760 kbit/s.
        let platform = try InProcessPlatform.start(identity: "unused") { $0.roomPublishKbps = 800 }
        defer { Task { await platform.server.shutdown() } }
        let token = try InProcessPlatform.token(platform.server, identity: "cam", grants: [.video(VideoGrant(room: "studio"))])
        let edge = platform.videoEdge
        let microphone = try ToneAudioDevice(frequency: 440, levelDBFS: -12)
        let room = try await Video.connect(ConnectOptions(token: token) { builder in
            builder.roomName = "studio"
            builder.edge = edge
            builder.audioTracks = [LocalAudioTrack(name: "mic", device: microphone)]
            // Grain makes the encoder spend what it is given.
            builder.videoTracks = [LocalVideoTrack(name: "camera", source: PacedVideoSource(TestPattern(width: 320, height: 180, grain: 12)))]
            builder.encodingParameters = EncodingParameters(audioBitrate: 12_000, videoBitrate: 150_000)
        })
        defer { room.disconnect() }
        #expect(try await Self.ceiling(of: room, becomes: 150_000) == 150_000)
        // A second to settle (the first key frame), then two windows.
        _ = try await Self.sentBitrate(room, video: true, packets: 30)
        let lowVideo = try await Self.sentBitrate(room, video: true, packets: 120)
        let lowAudio = try await Self.sentBitrate(room, video: false, packets: 150)
        print("encoding caps 12k/150k: audio \(Int(lowAudio)) bit/s, video \(Int(lowVideo)) bit/s")
        #expect(lowVideo <= 150_000 * 1.25, "video sends \(Int(lowVideo)) bit/s under a 150 kbit/s cap")
        #expect(lowAudio <= 12_000 * 1.2, "audio sends \(Int(lowAudio)) bit/s under a 12 kbit/s cap")

        // Lifted: the audio back to its 40 kbit/s default, the video up to the server's 760 kbit/s.
        try #require(room.localParticipant != nil)
        room.localParticipant?.setEncodingParameters(EncodingParameters(audioBitrate: 0, videoBitrate: 2_000_000))
        #expect(try await Self.ceiling(of: room, becomes: 760_000) == 760_000, "the cap is the lower of the app's and 95 % of REMB")
        _ = try await Self.sentBitrate(room, video: true, packets: 60)
        let highVideo = try await Self.sentBitrate(room, video: true, packets: 300)
        let highAudio = try await Self.sentBitrate(room, video: false, packets: 150)
        print("encoding caps lifted (server 800k): audio \(Int(highAudio)) bit/s, video \(Int(highVideo)) bit/s")
        #expect(highVideo >= 150_000 * 1.5 && highVideo <= 760_000 * 1.25, "video sends \(Int(highVideo)) bit/s")
        #expect(highAudio >= 12_000 * 1.5, "audio sends \(Int(highAudio)) bit/s without a cap")
    }

    /// `preferredAudioCodecs`: two participants preferring G.711 (PCMU first, no Opus: the server
    /// answers Opus whenever it is offered) offer only those in every audio section, so the
    /// server answers PCMU for what they send and for their receive slots; each sends PCMU and
    /// hears the other's tone through the SFU.
    @Test(.timeLimit(.minutes(1))) func participantsPreferringPCMUSendAndHearPCMU() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let tones: [(String, Double, [AudioCodec])] = [("alice", 440, [.pcmu]), ("bob", 660, [.pcmu, .pcma])]
        var rooms: [Room] = []
        var listeners: [String: RoomAudioTests.Listener] = [:]
        for (identity, frequency, codecs) in tones {
            let listener = RoomAudioTests.Listener()
            listeners[identity] = listener
            let token = try InProcessPlatform.token(platform.server, identity: identity, grants: [.video(VideoGrant(room: "g711"))])
            let device = try ToneAudioDevice(frequency: frequency, levelDBFS: -12)
            rooms.append(try await Video.connect(ConnectOptions(token: token) { builder in
                builder.roomName = "g711"
                builder.edge = edge
                builder.audioTracks = [LocalAudioTrack(name: "mic", device: device)]
                builder.preferredAudioCodecs = codecs
            }, delegate: listener))
        }
        defer { for room in rooms { room.disconnect() } }
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
                try #require(samples.count >= 96_000, "\(me) got \(samples.count) samples of \(other)")
                let heard = heardFrequency(samples)
                #expect(abs(heard - frequency) < 15, "\(me) hears \(other) at \(heard) Hz, not \(frequency)")
            }
        }
        for room in rooms {
            let stats = await room.getStats()
            #expect(stats.localAudioTrackStats.map(\.codec) == ["PCMU"], "\(room.localParticipant?.identity ?? "-") sends \(stats.localAudioTrackStats.map(\.codec))")
            #expect(stats.remoteAudioTrackStats.map(\.codec) == ["PCMU"], "\(room.localParticipant?.identity ?? "-") receives \(stats.remoteAudioTrackStats.map(\.codec))")
            // 64 kbit/s: 160 bytes every 20 ms.
            #expect(stats.localAudioTrackStats.first.map { $0.bytesSent == 160 * $0.layers.reduce(0) { $0 + $1.packetsSent } } == true)
        }
    }
}
