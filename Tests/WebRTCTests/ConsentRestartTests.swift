import ParleyCore
import Testing
import WebRTC

/// A connected call session whose ICE consent expired (RFC 7675 §5.1, here after 1 s without a
/// check: the clients check only every 4–6 s) sends nothing more, and is not ended at once: an ICE
/// restart within `restartGrace` brings it back with its forwarding, and a session that gets none
/// fails with 53405 when the grace is over.
@Suite(.serialized) struct ConsentRestartTests {
    @Test(.timeLimit(.minutes(1))) func consentExpiredSessionsWaitForARestart() async throws {
        var configuration = MediaTransportServer.Configuration()
        configuration.consentTimeout = .seconds(1)
        configuration.restartGrace = .seconds(4)
        let server = try MediaTransportServer(configuration: configuration)
        let a = try await ClientLeg.connect(to: server)
        let b = try await ClientLeg.connect(to: server)
        let idle = try await ClientLeg.connect(to: server)
        #expect(await server.forward(from: b.id, to: a.id))
        #expect(await a.waitForEvent { $0 == .consentLost(sessionID: a.id) } != nil, "\(a.events)")
        let lostAt = ContinuousClock.now
        #expect(await server.session(id: a.id)?.state == .connected)

        // Nothing reaches a while its consent is gone.
        a.clear()
        try await b.sendFrames(10, tag: 1)
        #expect(!(await a.waitForPackets(1, timeout: .milliseconds(300))), "\(a.received.count) packets sent without consent")

        for leg in [a, b] {
            try await leg.pc.setRemoteAnswer(try await server.restartSession(id: leg.id, offer: try await leg.pc.restartICE()))
        }
        #expect(await a.waitForEvent { $0 == .connectivityRestored(sessionID: a.id) } != nil, "\(a.events)")
        #expect(await a.waitForEvent { $0 == .iceRestarted(sessionID: a.id) } != nil, "\(a.events)")
        try await b.sendFrames(10, tag: 2)
        #expect(await a.waitForPackets(10), "a received \(a.received.count) after its restart")
        #expect(a.received.allSatisfy { $0.audio.payload[0] == 2 })

        // The leg that never restarted fails once the grace is over, not before.
        let failed = await idle.waitForEvent { if case .stateChanged(_, .failed, _) = $0 { true } else { false } }
        guard case .stateChanged(_, .failed, let error)? = failed else {
            Issue.record("the idle leg did not fail: \(idle.events)")
            return
        }
        #expect(error?.code == .mediaConnection)
        #expect(ContinuousClock.now - lostAt >= .seconds(3), "failed before the grace was over")
        #expect(await server.session(id: a.id)?.state == .connected)
        for leg in [a, b, idle] { await leg.close() }
        await server.shutdown()
    }
}
