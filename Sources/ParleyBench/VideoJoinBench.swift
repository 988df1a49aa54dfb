import AccessToken
import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import ParleyVideo
import Synchronization
import VideoCore

/// `parley-bench video-join [--joins N]`: what joining a room costs a ParleyVideo app, on the
/// real path (SDK → signaling → room service → SFU → SDK) against an in-process server. One
/// participant publishes a 640×360 test pattern at 30 fps; N others join one after another,
/// each measuring `Video.connect` → `roomDidConnect` and → its first decoded frame of the
/// publisher's video, then leaving. Prints p50/p90/max of both.
enum VideoJoinBench {
    /// Notes when the first frame arrives.
    final class FirstFrame: RoomDelegate, RemoteParticipantDelegate, VideoRenderer {
        let at = Mutex<ContinuousClock.Instant?>(nil)
        func roomDidConnect(room: Room) { for participant in room.remoteParticipants { participant.delegate = self } }
        func roomDidFailToConnect(room: Room, error: ParleyError) {}
        func roomDidDisconnect(room: Room, error: ParleyError?) {}
        func participantDidConnect(room: Room, participant: RemoteParticipant) { participant.delegate = self }
        func remoteParticipant(_ participant: RemoteParticipant, didSubscribeTo publication: RemoteTrackPublication) {
            publication.remoteVideoTrack?.addRenderer(self)
        }
        func renderFrame(_ frame: I420Frame) { at.withLock { if $0 == nil { $0 = .now } } }
    }

    static func run(joins: Int) async throws {
        let platform = try InProcessPlatform.start(identity: "bench")
        defer { Task { await platform.server.shutdown() } }
        let edge = "bench"
        Video.servers[edge] = platform.baseURL
        func token(_ identity: String) throws -> String {
            try InProcessPlatform.token(platform.server, identity: identity, grants: [.video(VideoGrant(room: "bench"))])
        }
        let camera = PacedVideoSource(TestPattern(width: 640, height: 360, framesPerSecond: 30))
        let publisher = try await Video.connect(ConnectOptions(token: try token("camera")) { builder in
            builder.roomName = "bench"
            builder.edge = edge
            builder.videoTracks = [LocalVideoTrack(name: "camera", source: camera)]
        })
        var connects: [Double] = [], frames: [Double] = []
        for index in 0..<joins {
            let watcher = FirstFrame()
            let started = ContinuousClock.now
            let room = try await Video.connect(ConnectOptions(token: try token("viewer_\(index)")) { builder in
                builder.roomName = "bench"
                builder.edge = edge
            }, delegate: watcher)
            connects.append((ContinuousClock.now - started).milliseconds)
            let deadline = ContinuousClock.now + .seconds(10)
            while watcher.at.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
            if let at = watcher.at.withLock({ $0 }) { frames.append((at - started).milliseconds) }
            room.disconnect()
            try await Task.sleep(for: .milliseconds(200))
        }
        publisher.disconnect()
        print("video-join: \(joins) joins of a room with one 640x360 VP8 publisher, in-process server on loopback")
        print("| from Video.connect to | p50 | p90 | max | samples |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for (name, values) in [("roomDidConnect", connects), ("first decoded frame", frames)] {
            let sorted = values.sorted()
            func at(_ q: Double) -> String { sorted.isEmpty ? "-" : String(format: "%.0f ms", sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]) }
            print("| \(name) | \(at(0.5)) | \(at(0.9)) | \(sorted.last.map { String(format: "%.0f ms", $0) } ?? "-") | \(sorted.count) |")
        }
    }
}

extension Duration {
    fileprivate var milliseconds: Double { Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15 }
}
