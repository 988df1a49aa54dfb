import Foundation
import HTTPWire
import ParleyNet
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing
import WebRTC

/// Grants on the media path, measured in packets: clients on our own `PeerConnection` (Opus and
/// VP8) join over signaling with the server's real media plane; REST `SubscribeRules` and
/// `Status=disconnected` stop what reaches a subscriber within a second.
extension RoomSignalingTests {
    /// A client in room `live`: its signaling, its peer connection and its `room.joined`.
    struct MediaClient {
        let signaling: SignalingTestClient
        let pc: PeerConnection
        let joined: RoomJoined
    }

    func mediaClient(_ h: VoiceHarness, _ identity: String, publish: Bool) async throws -> MediaClient {
        var configuration = PeerConnection.Configuration()
        configuration.videoCodecs = [.vp8]
        let pc = try PeerConnection(configuration: configuration)
        let signaling = try await videoClient(h, identity)
        let tracks = publish ? [RoomTrackInfo(mid: "0", name: "mic", kind: .audio), RoomTrackInfo(mid: "1", name: "camera", kind: .video)] : []
        try await signaling.send(.roomJoin(RoomJoin(room: "live", offer: try await pc.createOffer(), tracks: tracks)), id: "j")
        let reply = try #require(try await next(1, of: signaling).first)
        guard case .roomJoined(let joined) = reply.message, let answer = joined.answer else {
            throw TestFailure("expected room.joined with an answer: \(reply)")
        }
        try await pc.setRemoteAnswer(answer)
        #expect(await pc.waitUntilConnected(timeout: .seconds(10)))
        return MediaClient(signaling: signaling, pc: pc, joined: joined)
    }

    /// Polls `count` every 5 ms for `window` after `start`: how long after `start` it last grew
    /// past `last` (its value at `start`), or zero.
    func lastGrowth(since start: ContinuousClock.Instant, from last: UInt64, window: Duration = .seconds(2),
                    _ count: () async -> UInt64) async throws -> Duration {
        var last = last, grewAt = start
        while ContinuousClock.now < start + window {
            try await Task.sleep(for: .milliseconds(5))
            let now = await count()
            if now != last { (last, grewAt) = (now, ContinuousClock.now) }
        }
        return grewAt - start
    }

    /// A form POST to the Video REST API with the account's credentials.
    func post(_ h: VoiceHarness, _ path: String, _ form: [(String, String)]) async throws -> HTTPResponse {
        var headers = RESTFixture.basic(h.credentials.account.sid, h.credentials.account.authToken)
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        let body = form.map { "\(RESTFixture.encode($0.0))=\(RESTFixture.encode($0.1))" }.joined(separator: "&")
        let client = try HTTPClient()
        defer { client.shutdown() }
        return try await client.send(HTTPRequest(method: "POST", target: path, headers: headers, body: Array(body.utf8)),
                                     to: h.baseURL + path)
    }

    @Test(.timeLimit(.minutes(1))) func subscribeRulesAndADisconnectStopPacketsWithinASecond() async throws {
        try await withHarness(roomMedia: nil) { h in
            let alice = try await mediaClient(h, "alice", publish: true)
            let bob = try await mediaClient(h, "bob", publish: false)
            let room = alice.joined.room.sid
            let pc = alice.pc
            let sender = Task {
                var i = 0
                while !Task.isCancelled {
                    defer { i += 1 }
                    pc.sendAudio(payload: [UInt8](repeating: 1, count: 40), timestampIncrement: 960)
                    let vp8: [UInt8] = [0x90, 0x80, 0x80 | UInt8((i >> 8) & 0x7F), UInt8(i & 0xFF), i % 5 == 0 ? 0x10 : 0x11]
                    pc.sendRTP(payload: vp8 + [UInt8](repeating: 7, count: 60), payloadType: 96,
                               sequenceNumber: UInt16(truncatingIfNeeded: i), timestamp: UInt32(truncatingIfNeeded: 3_000 * i), marker: true)
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            defer { sender.cancel() }
            let deadline = ContinuousClock.now + .seconds(10)
            while await bob.pc.statistics().videoPacketsReceived < 10, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(await bob.pc.statistics().videoPacketsReceived >= 10, "bob receives alice's camera")

            // Rules without video: bob's video stops, his audio goes on.
            let videoAtRules = await bob.pc.statistics().videoPacketsReceived
            let rulesAt = ContinuousClock.now
            let rules = try await post(h, "/v1/Rooms/\(room)/Participants/\(bob.joined.participant.sid)/SubscribeRules",
                                       [("Rules", #"[{"type":"include","all":true},{"type":"exclude","kind":"video"}]"#)])
            #expect(rules.status == 202 || rules.status == 200)
            let videoStopped = try await lastGrowth(since: rulesAt, from: videoAtRules) {
                await bob.pc.statistics().videoPacketsReceived
            }
            let audioBefore = await bob.pc.statistics().packetsReceived
            try await Task.sleep(for: .milliseconds(200))
            #expect(await bob.pc.statistics().packetsReceived > audioBefore, "audio still arrives")
            #expect(videoStopped < .seconds(1), "video stopped \(videoStopped) after the rules")

            // Status=disconnected: nothing of alice's reaches bob any more.
            let audioAtRemoval = await bob.pc.statistics().packetsReceived
            let removedAt = ContinuousClock.now
            let removed = try await post(h, "/v1/Rooms/\(room)/Participants/\(alice.joined.participant.sid)", [("Status", "disconnected")])
            #expect(removed.status == 200)
            let audioStopped = try await lastGrowth(since: removedAt, from: audioAtRemoval) {
                await bob.pc.statistics().packetsReceived
            }
            #expect(audioStopped < .seconds(1), "audio stopped \(audioStopped) after Status=disconnected")
            func ms(_ d: Duration) -> Int { Int(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000) }
            print("room media: video stopped \(ms(videoStopped)) ms after the SubscribeRules POST; audio \(ms(audioStopped)) ms "
                  + "after the Status=disconnected POST")
            sender.cancel()
            await alice.pc.close()
            await bob.pc.close()
            await alice.signaling.close()
            await bob.signaling.close()
        }
    }
}
