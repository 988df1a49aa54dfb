import Foundation
import Testing
import WebRTC

/// Generic NACK on audio (RFC 4585 §6.2.1) across a bridged call, hop by hop: the server asks the
/// caller again for what it missed and answers the callee's requests from what it sent. Real ICE,
/// DTLS-SRTP and loopback UDP; the loss is a leg's network blocked for a moment.
@Suite(.serialized) struct CallBridgeNACKTests {
    static func nackLeg(_ server: MediaTransportServer) async throws -> ClientLeg {
        var configuration = PeerConnection.Configuration()
        configuration.offerAudioNACK = true
        return try await ClientLeg.connect(to: server, configuration: configuration)
    }

    @Test(.timeLimit(.minutes(1))) func packetsLostOnEitherHopAreResent() async throws {
        let server = try MediaTransportServer()
        let a = try await Self.nackLeg(server)
        let b = try await Self.nackLeg(server)
        #expect(a.answer.contains("a=rtcp-fb:111 nack"))
        #expect(await server.forward(from: a.id, to: b.id))
        let start = ContinuousClock.now
        for i in 0..<30 {
            // Frame 5 never leaves A; frames 15–16 are sent while B's network is down.
            if i == 5 { await a.pc.simulateNetworkOutage(true) }
            if i == 15 { await b.pc.simulateNetworkOutage(true) }
            a.pc.sendAudio(payload: ClientLeg.frame(tag: 0xC0, index: i), timestampIncrement: 960)
            if i == 5 { await a.pc.simulateNetworkOutage(false) }
            if i == 16 {
                try await Task.sleep(for: .milliseconds(15))
                await b.pc.simulateNetworkOutage(false)
            }
            try await Task.sleep(until: start + .milliseconds(20 * (i + 1)), clock: .continuous)
        }
        #expect(await eventually { Set(b.received.map { Int($0.audio.payload[1]) }) == Set(0..<30) },
                "B has \(b.received.map { Int($0.audio.payload[1]) })")
        let serverA = try #require(await server.session(id: a.id)?.counters)
        let serverB = try #require(await server.session(id: b.id)?.counters)
        let (statsA, statsB) = (await a.pc.statistics(), await b.pc.statistics())
        #expect(statsA.isAudioNACKNegotiated && statsB.isAudioNACKNegotiated)
        #expect(serverA.nacksSent >= 1 && statsA.retransmissionsSent >= 1, "A's hop: \(serverA.nacksSent) NACKs, \(statsA.retransmissionsSent) resent")
        #expect(statsB.nacksSent >= 1 && serverB.retransmissionsSent >= 1, "B's hop: \(statsB.nacksSent) NACKs, \(serverB.retransmissionsSent) resent")
        await a.close()
        await b.close()
        await server.shutdown()
    }

    @Test(.timeLimit(.minutes(1))) func nackIsOnlyAnsweredWhenOffered() async throws {
        let server = try MediaTransportServer()
        let plain = try await ClientLeg.connect(to: server)
        #expect(!plain.answer.contains("nack"))
        #expect(await plain.pc.statistics().isAudioNACKNegotiated == false)
        await plain.close()
        await server.shutdown()
    }
}
