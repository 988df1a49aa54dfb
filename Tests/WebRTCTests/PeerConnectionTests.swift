import Foundation
import HTTPWire
import ICE
import ParleyNet
import ParleyOpus
import ParleyServer
import ParleyTestSupport
import Testing
import WebRTC

/// Our client `PeerConnection` against the server's `POST /v1/echo` (an in-process
/// `PlatformServer`): full ICE against ICE-lite, DTLS client, SRTP, Opus out and back, RTCP RTT.
@Suite(.serialized) struct PeerConnectionTests {
    @Test(.timeLimit(.minutes(1))) func opusToneComesBackThroughEchoEndpoint() async throws {
        let platform = try InProcessPlatform.start(identity: "pc_tester", ttl: 600)
        let (server, token) = (platform.server, platform.token)
        var pcConfig = PeerConnection.Configuration()
        pcConfig.rtcpInterval = .milliseconds(500)
        let pc = try PeerConnection(configuration: pcConfig)
        let http = try HTTPClient()

        let offer = try await pc.createOffer()
        for line in ["a=group:BUNDLE 0", "a=rtcp-mux", "a=ice-options:trickle", "a=fingerprint:sha-256 ",
                     "a=setup:actpass", "a=sendrecv", "a=rtpmap:111 opus/48000/2",
                     "a=fmtp:111 minptime=10;useinbandfec=1", "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000",
                     "a=candidate:", "typ host", "a=end-of-candidates", "a=msid:", "cname:"] {
            #expect(offer.contains(line), "offer lacks \(line):\n\(offer)")
        }
        let url = "http://127.0.0.1:\(server.port)/v1/echo"
        let response = try await http.send(
            HTTPRequest(method: "POST", target: "/v1/echo",
                        headers: ["Host": "127.0.0.1", "Authorization": "Bearer \(token)", "Content-Type": "application/sdp"],
                        body: Array(offer.utf8)), to: url)
        #expect(response.status == 201, "POST /v1/echo: \(response.status) \(response.bodyText)")
        try await pc.setRemoteAnswer(response.bodyText)
        let connected = await pc.waitUntilConnected(timeout: .seconds(10))
        let atConnect = await pc.statistics()
        #expect(connected, "not connected: \(atConnect.state) ICE \(atConnect.iceState) \(atConnect.failure.map { "\($0)" } ?? "")")
        guard connected else {
            await pc.close()
            await server.shutdown()
            return
        }
        print("PeerConnection → /v1/echo: offer → connected \(atConnect.timings.offerToConnected.map { "\($0)" } ?? "-"), "
              + "timings \(atConnect.timings)")
        #expect(atConnect.localCandidate?.type == .host)

        let collector = Task { () -> [[UInt8]] in
            var frames: [[UInt8]] = []
            for await frame in pc.audio { frames.append(frame.payload) }
            return frames
        }
        try await ToneAudio.send(pc, frequency: 440, seconds: 2)
        // Wait for the last echoes and at least one RTT sample.
        let deadline = ContinuousClock.now + .seconds(4)
        var stats = await pc.statistics()
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            stats = await pc.statistics()
            if stats.roundTripTimeSamples > 0, stats.packetsReceived >= stats.packetsSent { break }
        }
        await pc.close()
        let frames = await collector.value
        await server.shutdown()
        http.shutdown()

        print("PeerConnection stats: sent \(stats.packetsSent), received \(stats.packetsReceived), RTT "
              + "\(stats.roundTripTime.map { "\($0)" } ?? "-") (\(stats.roundTripTimeSamples) samples), jitter "
              + "\(stats.jitter) s, lost \(stats.cumulativeLost), rtcp sent \(stats.rtcpSent) received \(stats.rtcpReceived)")
        #expect(stats.packetsSent >= 95)
        #expect(frames.count >= 90, "only \(frames.count) echoed frames")
        let dominant = try ToneAudio.dominantFrequency(ofOpus: frames)
        #expect(abs(dominant - 440) <= 15, "echo dominant frequency \(dominant) Hz")
        #expect(stats.roundTripTime != nil, "no RTT from RTCP")
        #expect((stats.roundTripTime ?? .seconds(1)) < .milliseconds(200))
        #expect(stats.rtcpReceived > 0)
        #expect(await pc.state == .closed)
    }
}

extension PeerConnectionTests {
    /// Two of our PeerConnections: one offers (controlling, DTLS server after `a=setup:active`),
    /// the other answers with `createAnswer(toOffer:)` (controlled, DTLS client). Audio both ways.
    @Test(.timeLimit(.minutes(1))) func offererAndAnswererConnect() async throws {
        let offerer = try PeerConnection()
        let answerer = try PeerConnection()
        let offer = try await offerer.createOffer()
        let answer = try await answerer.createAnswer(toOffer: offer)
        #expect(answer.contains("a=setup:active"), "answer:\n\(answer)")
        #expect(answer.contains("a=rtpmap:111 opus/48000/2"))
        try await offerer.setRemoteAnswer(answer)
        let a = await offerer.waitUntilConnected(timeout: .seconds(10))
        let b = await answerer.waitUntilConnected(timeout: .seconds(10))
        let states = (await offerer.state, await answerer.state)
        #expect(a && b, "offerer \(states.0), answerer \(states.1)")
        let toAnswerer = Task { () -> Int in
            var n = 0
            for await _ in answerer.audio { n += 1 }
            return n
        }
        let toOfferer = Task { () -> [[UInt8]] in
            var frames: [[UInt8]] = []
            for await frame in offerer.audio { frames.append(frame.payload) }
            return frames
        }
        async let one: Void = ToneAudio.send(offerer, frequency: 440, seconds: 1)
        async let two: Void = ToneAudio.send(answerer, frequency: 660, seconds: 1)
        _ = try await (one, two)
        try await Task.sleep(for: .milliseconds(200))
        let stats = await offerer.statistics()
        await offerer.close()
        await answerer.close()
        let received = await toAnswerer.value
        let frames = await toOfferer.value
        print("PeerConnection ↔ PeerConnection: offer → connected \(stats.timings.offerToConnected.map { "\($0)" } ?? "-")")
        #expect(received >= 45, "answerer got \(received) frames")
        #expect(frames.count >= 45, "offerer got \(frames.count) frames")
        let dominant = try ToneAudio.dominantFrequency(ofOpus: frames)
        #expect(abs(dominant - 660) <= 15, "offerer heard \(dominant) Hz")
    }
}
