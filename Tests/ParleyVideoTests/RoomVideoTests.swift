import AccessToken
import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
@testable import ParleyVideo
import Synchronization
import Testing
import VideoCore

/// Video through a real in-process `parley-server` with the SDK: three participants in one group
/// room, each publishing a moving test pattern (VP8 through libvpx, forwarded by the SFU), each
/// decoding the other two's at their size, with the frame numbers the pattern draws advancing
/// (moving content, not one frozen picture).
@Suite(.serialized) struct RoomVideoTests {
    /// Keeps the frame numbers and sizes a remote video track renders.
    final class Screen: VideoRenderer {
        let seen = Mutex<(numbers: [UInt32], sizes: [String])>(([], []))
        func renderFrame(_ frame: I420Frame) {
            let number = TestPattern.frameNumber(in: frame)
            seen.withLock { if let number { $0.numbers.append(number) } }
        }
        func updateVideoSize(width: Int, height: Int) { seen.withLock { $0.sizes.append("\(width)x\(height)") } }
        var count: Int { seen.withLock { $0.numbers.count } }
    }

    /// Puts a `Screen` on every video track a participant subscribes to, by publisher identity.
    final class Viewer: RoomDelegate, RemoteParticipantDelegate {
        let screens = Mutex<[String: Screen]>([:])
        let connectedAt = Mutex<ContinuousClock.Instant?>(nil)

        func roomDidConnect(room: Room) {
            connectedAt.withLock { $0 = .now }
            for participant in room.remoteParticipants { participant.delegate = self }
        }
        func roomDidFailToConnect(room: Room, error: ParleyError) {}
        func roomDidDisconnect(room: Room, error: ParleyError?) {}
        func participantDidConnect(room: Room, participant: RemoteParticipant) { participant.delegate = self }
        func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
            guard let track = publication.remoteVideoTrack else { return }
            let screen = Screen()
            track.addRenderer(screen)
            screens.withLock { $0[participant.identity] = screen }
        }
        func screen(_ identity: String) -> Screen? { screens.withLock { $0[identity] } }
    }

    @Test(.timeLimit(.minutes(1))) func threeParticipantsSeeEachOthersMovingPictures() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let sizes = [("alice", 320, 180), ("bob", 256, 144), ("carol", 320, 240)]
        var rooms: [Room] = []
        var viewers: [String: Viewer] = [:]
        for (identity, width, height) in sizes {
            let viewer = Viewer()
            viewers[identity] = viewer
            let token = try InProcessPlatform.token(platform.server, identity: identity, grants: [.video(VideoGrant(room: "studio"))])
            let camera = PacedVideoSource(TestPattern(width: width, height: height, framesPerSecond: 15))
            rooms.append(try await Video.connect(ConnectOptions(token: token) { builder in
                builder.roomName = "studio"
                builder.edge = edge
                builder.videoTracks = [LocalVideoTrack(name: "camera", source: camera)]
            }, delegate: viewer))
        }
        for _ in 0..<1_500 {
            let enough = sizes.allSatisfy { me, _, _ in
                sizes.filter { $0.0 != me }.allSatisfy { other, _, _ in (viewers[me]?.screen(other)?.count ?? 0) >= 20 }
            }
            if enough { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        for (me, _, _) in sizes {
            for (other, width, height) in sizes where other != me {
                let screen = try #require(viewers[me]?.screen(other), "\(me) sees nothing of \(other)")
                let (numbers, seenSizes) = screen.seen.withLock { ($0.numbers, $0.sizes) }
                #expect(numbers.count >= 20, "\(me) decoded \(numbers.count) frames of \(other)")
                #expect(seenSizes == ["\(width)x\(height)"], "\(me) sees \(other) at \(seenSizes)")
                #expect(Set(numbers).count == numbers.count && numbers == numbers.sorted(), "\(other)'s frames advance: \(numbers)")
            }
        }
        // getStats: alice sends one video track and receives two.
        let stats = await rooms[0].getStats()
        #expect(stats.localVideoTrackStats.count == 1 && stats.localVideoTrackStats[0].layers.first?.packetsSent ?? 0 > 0)
        #expect(stats.localVideoTrackStats.first?.codec == "VP8" && stats.localVideoTrackStats.first?.trackSid?.hasPrefix("MT") == true)
        #expect(stats.remoteVideoTrackStats.count == 2 && stats.remoteVideoTrackStats.allSatisfy { $0.packetsReceived > 0 && ($0.framesDecoded ?? 0) >= 20 },
                "\(stats.remoteVideoTrackStats)")
        for room in rooms { room.disconnect() }
    }

    /// The server caps what a publisher sends (`--room-publish-kbps`, announced in REMB): the
    /// SDK's encoder aims under it.
    @Test(.timeLimit(.minutes(1))) func theEncoderFollowsTheServersPublishCap() async throws {
        let platform = try InProcessPlatform.start(identity: "unused") { $0.roomPublishKbps = 400 }
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let token = try InProcessPlatform.token(platform.server, identity: "cam", grants: [.video(VideoGrant(room: "studio"))])
        let room = try await Video.connect(ConnectOptions(token: token) { builder in
            builder.roomName = "studio"
            builder.edge = edge
            builder.videoTracks = [LocalVideoTrack(name: "camera", source: PacedVideoSource(TestPattern(width: 320, height: 180)))]
        })
        var ceiling: Int?
        for _ in 0..<500 {
            ceiling = room.inner.withLock { $0.videoSenders.first?.bitrateCeiling }
            if ceiling != nil { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(ceiling == 380_000, "the encoder aims at \(ceiling.map(String.init) ?? "its default")")
        room.disconnect()
    }
}
