import AccessToken
import AudioDevices
import Foundation
import HTTPWire
import ICE
import ParleyClientCore
import ParleyNet
import ParleyCore
import ParleyServer
import ParleyTestSupport
@testable import ParleyVideo
import Synchronization
import Testing

/// `ConnectOptions` that shape what the SDK hears and how it connects, through a real in-process
/// `parley-server`: network quality verbosity, ICE options.
@Suite(.serialized) struct RoomOptionsTests {
    /// Counts the network quality levels a participant hears, its own and the others'.
    final class QualityWatcher: RoomDelegate, RemoteParticipantDelegate, LocalParticipantDelegate {
        let heard = Mutex<(local: Int, remote: Int)>((0, 0))
        func roomDidConnect(room: Room) {
            room.localParticipant?.delegate = self
            for participant in room.remoteParticipants { participant.delegate = self }
        }
        func roomDidFailToConnect(room: Room, error: ParleyError) {}
        func roomDidDisconnect(room: Room, error: ParleyError?) {}
        func participantDidConnect(room: Room, participant: RemoteParticipant) { participant.delegate = self }
        func remoteParticipant(_ participant: RemoteParticipant, networkQualityLevelDidChange level: NetworkQualityLevel) {
            heard.withLock { $0.remote += 1 }
        }
        func localParticipant(_ participant: LocalParticipant, networkQualityLevelDidChange level: NetworkQualityLevel) {
            heard.withLock { $0.local += 1 }
        }
    }

    /// alice asks for the others' levels (`remoteVerbosity: .minimal`), bob keeps Twilio's
    /// default (`.none`): both hear their own level, only alice hears the other's; the server's
    /// levels about alice reach bob and are dropped.
    @Test(.timeLimit(.minutes(1))) func remoteLevelsArriveOnlyWithARemoteVerbosity() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let people: [(String, NetworkQualityVerbosity)] = [("alice", .minimal), ("bob", .none)]
        var rooms: [Room] = [], watchers: [QualityWatcher] = []
        for (identity, remote) in people {
            let watcher = QualityWatcher()
            watchers.append(watcher)
            let token = try InProcessPlatform.token(platform.server, identity: identity, grants: [.video(VideoGrant(room: "weather"))])
            let device = try ToneAudioDevice(frequency: 440, levelDBFS: -20)
            rooms.append(try await Video.connect(ConnectOptions(token: token) { builder in
                builder.roomName = "weather"
                builder.edge = edge
                builder.audioTracks = [LocalAudioTrack(name: "mic", device: device)]
                builder.isNetworkQualityEnabled = true
                builder.networkQualityConfiguration = NetworkQualityConfiguration(localVerbosity: .minimal, remoteVerbosity: remote)
            }, delegate: watcher))
        }
        defer { for room in rooms { room.disconnect() } }
        let (alice, bob) = (rooms[0], rooms[1])
        for _ in 0..<1_500 {
            let aliceHears = alice.remoteParticipants.first?.networkQualityLevel ?? .unknown
            let bobDropped = bob.inner.withLock { $0.model.remoteLevelsIgnored }
            if aliceHears != .unknown, bobDropped > 0, bob.localParticipant?.networkQualityLevel != .unknown { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(alice.localParticipant?.networkQualityLevel != .unknown && watchers[0].heard.withLock { $0.local } > 0)
        #expect(alice.remoteParticipants.first?.networkQualityLevel != .unknown && watchers[0].heard.withLock { $0.remote } > 0,
                "alice hears bob's level")
        #expect(bob.localParticipant?.networkQualityLevel != .unknown && watchers[1].heard.withLock { $0.local } > 0)
        #expect(bob.inner.withLock { $0.model.remoteLevelsIgnored } > 0, "the server sent bob alice's level")
        #expect(bob.remoteParticipants.first?.networkQualityLevel == .unknown && watchers[1].heard.withLock { $0.remote } == 0,
                "bob hears no level of alice's")
    }

    /// `isInsightsEnabled`: a room with it on posts its `room` events (`connected`,
    /// `disconnected`) to the server's `/v1/insights`, read back with the same video token; a
    /// room with it off posts none.
    @Test(.timeLimit(.minutes(1))) func insightsFollowTheRoomsSwitch() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        var tokens: [String: String] = [:]
        for (identity, insights) in [("told", true), ("quiet", false)] {
            let token = try InProcessPlatform.token(platform.server, identity: identity, grants: [.video(VideoGrant(room: "survey"))])
            tokens[identity] = token
            let room = try await Video.connect(ConnectOptions(token: token) { builder in
                builder.roomName = "survey"
                builder.edge = edge
                builder.isInsightsEnabled = insights
            })
            room.disconnect()
        }
        await Video.insights.flush()
        func names(_ identity: String) async throws -> [String] {
            let client = try HTTPClient()
            defer { client.shutdown() }
            var request = HTTPRequest(method: "GET", target: "/v1/insights")
            request.headers.set("Authorization", "Bearer \(tokens[identity] ?? "")")
            let response = try await client.send(request, to: platform.baseURL + "/v1/insights", timeout: .seconds(10))
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            let body = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
            return ((body?["events"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        }
        #expect(Set(try await names("told")) == ["connected", "disconnected"])
        #expect(try await names("quiet").isEmpty)
    }

    /// `iceOptions` reach the media connection: relay-only with no TURN server leaves no
    /// candidate to pair, so the room cannot connect its media (a 534xx media error), where the
    /// same join with the default options connects.
    @Test(.timeLimit(.minutes(1))) func aRelayOnlyPolicyWithoutTURNCannotConnectMedia() async throws {
        let platform = try InProcessPlatform.start(identity: "unused")
        defer { Task { await platform.server.shutdown() } }
        let edge = platform.videoEdge
        let usualToken = try InProcessPlatform.token(platform.server, identity: "open", grants: [.video(VideoGrant(room: "vault"))])
        let usual = try await Video.connect(ConnectOptions(token: usualToken) { builder in
            builder.roomName = "vault"
            builder.edge = edge
        })
        defer { usual.disconnect() }
        let usualMedia = try #require(await Self.media(of: usual))
        #expect(await usualMedia.connected(), "the default options connect media")
        let token = try InProcessPlatform.token(platform.server, identity: "hidden", grants: [.video(VideoGrant(room: "vault"))])
        let room = Video.connect(options: ConnectOptions(token: token) { builder in
            builder.roomName = "vault"
            builder.edge = edge
            builder.iceOptions = ICEOptions(servers: [], transportPolicy: .relay)
        }, delegate: nil)
        defer { room.disconnect() }
        let media = try #require(await Self.media(of: room))
        #expect(await media.connected() == false, "relay-only media connected without a TURN server")
    }

    /// The room's media connection, once made.
    static func media(of room: Room) async -> RoomMediaConnection? {
        for _ in 0..<500 {
            if let media = room.inner.withLock({ $0.media }) { return media }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
