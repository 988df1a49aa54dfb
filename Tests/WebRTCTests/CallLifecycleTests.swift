import Foundation
import ParleyCore
import SDP
import Testing
import WebRTC

/// Call sessions over time: ICE restart, ending sessions, refused forwarding, and a burst of
/// packets through the forwarding path.
@Suite(.serialized) struct CallLifecycleTests {
    func ufrag(_ sdp: String) throws -> String {
        try #require(try SessionDescription(parsing: sdp).media.first?.iceUfrag)
    }

    @Test(.timeLimit(.minutes(1))) func iceRestartKeepsTheSessionItsForwardingAndMedia() async throws {
        let server = try MediaTransportServer()
        let a = try await ClientLeg.connect(to: server)
        let b = try await ClientLeg.connect(to: server)
        #expect(await server.forward(from: a.id, to: b.id))
        #expect(await server.forward(from: b.id, to: a.id))
        try await a.sendFrames(5, tag: 1)
        #expect(await b.waitForPackets(5))

        let offer = try await a.pc.restartICE()
        let answer = try await server.restartSession(id: a.id, offer: offer)
        #expect(try ufrag(answer) != ufrag(a.answer))
        let audio = try #require(try SessionDescription(parsing: answer).media.first)
        #expect(audio.ssrcs.first == a.answerSSRC)
        #expect(audio.setup == .passive)
        try await a.pc.setRemoteAnswer(answer)
        let restarted = await a.waitForEvent { $0 == .iceRestarted(sessionID: a.id) }
        #expect(restarted != nil, "no .iceRestarted; events \(a.events)")

        async let toB: Void = a.sendFrames(5, tag: 2)
        async let toA: Void = b.sendFrames(5, tag: 3)
        _ = try await (toB, toA)
        #expect(await b.waitForPackets(10))
        #expect(await a.waitForPackets(5))
        let atB = b.received
        for (x, y) in zip(atB, atB.dropFirst()) { #expect(y.audio.sequenceNumber == x.audio.sequenceNumber &+ 1) }
        #expect(atB.map(\.audio.payload[0]) == [1, 1, 1, 1, 1, 2, 2, 2, 2, 2])
        let snapshot = try #require(await server.session(id: a.id))
        #expect(snapshot.state == .connected && snapshot.forwardingSource == b.id && snapshot.forwardingSinks == [b.id])
        #expect(await a.pc.state == .connected)

        // A re-offer with unchanged credentials is no restart: the same ufrag comes back.
        let same = try await server.restartSession(id: a.id, offer: offer)
        #expect(try ufrag(same) == ufrag(answer))
        await #expect(throws: ParleyError.self) { try await server.restartSession(id: "nope", offer: offer) }
        await a.close()
        await b.close()
        await server.shutdown()
    }

    @Test(.timeLimit(.minutes(1))) func endingSessionsReportAndLeaveForwarding() async throws {
        let server = try MediaTransportServer()
        let a = try await ClientLeg.connect(to: server)
        let b = try await ClientLeg.connect(to: server)
        #expect(await server.forward(from: a.id, to: b.id))
        #expect(await server.forward(from: b.id, to: a.id))

        // The client hangs up (DTLS close_notify): A's session closes and leaves both links.
        await a.close()
        let closed = await a.waitForEvent { if case .stateChanged(_, .closed, _) = $0 { true } else { false } }
        #expect(closed == .stateChanged(sessionID: a.id, state: .closed, error: nil))
        #expect(a.events.first == .stateChanged(sessionID: a.id, state: .checking, error: nil))
        #expect(a.events.contains(.stateChanged(sessionID: a.id, state: .connected, error: nil)))
        #expect(await eventually { await server.session(id: a.id) == nil })
        let snapshotB = try #require(await server.session(id: b.id))
        #expect(snapshotB.forwardingSource == nil && snapshotB.forwardingSinks.isEmpty)
        #expect(await server.forward(from: a.id, to: b.id) == false)

        // B still sends; its media goes nowhere.
        try await b.sendFrames(3, tag: 9)
        #expect(await eventually { await server.session(id: b.id)?.counters.rtpReceived == 3 })
        #expect(await server.session(id: b.id)?.counters.rtpForwarded == 0)

        // Closed by the server: the last event is the terminal state.
        #expect(await server.closeSession(id: b.id))
        #expect(await b.waitForEvent { $0 == .stateChanged(sessionID: b.id, state: .closed, error: nil) } != nil)
        try await Task.sleep(for: .milliseconds(50))
        #expect(b.events.last == .stateChanged(sessionID: b.id, state: .closed, error: nil))
        await b.close()
        await server.shutdown()
    }

    @Test(.timeLimit(.minutes(1))) func failedSessionsReportTheirErrorAndLeaveForwarding() async throws {
        var configuration = MediaTransportServer.Configuration()
        configuration.connectTimeout = .milliseconds(300)
        let server = try MediaTransportServer(configuration: configuration)
        let events = Recorder<PeerSessionEvent>()
        let a = try await server.createCallSession(offer: makeOffer()) { events.append($0) }
        let b = try await server.createCallSession(offer: makeOffer()) { events.append($0) }
        #expect(await server.forward(from: a.id, to: b.id))
        #expect(await eventually { events.values.count == 2 })
        for id in [a.id, b.id] {
            let failed = events.values.first { $0.sessionID == id }
            guard case .stateChanged(_, .failed, let error)? = failed else {
                Issue.record("session \(id): \(String(describing: failed))")
                continue
            }
            #expect(error?.code == .mediaConnection)  // 53405: ICE never connected
        }
        #expect(await server.sessions().isEmpty)
        #expect(await server.statistics().sessionsFailed == 2)
        await server.shutdown()
    }

    @Test func forwardingIsRefusedBetweenDifferentCodecsAndNonCallSessions() async throws {
        let server = try MediaTransportServer()
        let ignore: @Sendable (PeerSessionEvent) -> Void = { _ in }
        let opus = try await server.createCallSession(offer: makeOffer(), events: ignore)
        let opus2 = try await server.createCallSession(offer: makeOffer(), events: ignore)
        let pcmu = try await server.createCallSession(offer: makeOffer(codecs: "a=rtpmap:0 PCMU/8000\r\n", formats: "0"),
                                                      events: ignore)
        let echo = try await server.createEchoSession(offer: makeOffer())
        #expect(await server.forward(from: opus.id, to: pcmu.id) == false)
        #expect(await server.forward(from: pcmu.id, to: opus.id) == false)
        #expect(await server.forward(from: opus.id, to: opus.id) == false)
        #expect(await server.forward(from: opus.id, to: echo.id) == false)
        #expect(await server.forward(from: echo.id, to: opus.id) == false)
        #expect(await server.forward(from: "unknown", to: opus.id) == false)
        #expect(await server.forward(from: opus.id, to: opus2.id))
        #expect(await server.session(id: opus2.id)?.forwardingSource == opus.id)
        #expect(await server.session(id: opus.id)?.forwardingSinks == [opus2.id])
        await server.stopForwarding(to: opus2.id)
        #expect(await server.session(id: opus2.id)?.forwardingSource == nil)
        #expect(await server.session(id: opus.id)?.forwardingSinks == [])
        #expect(await server.setAudioTap(session: "unknown") { _ in } == false)
        do {
            _ = try await server.createCallSession(offer: makeOffer(codecs: "a=rtpmap:9 G722/8000\r\n", formats: "9"),
                                                   events: ignore)
            Issue.record("accepted an offer without a supported codec")
        } catch {
            #expect(error.code == .mediaNoSupportedCodec)
        }
        await server.shutdown()
    }

    /// Bursts of packets through the forwarding path, all delivered in one stream.
    ///
    /// Allocation check (manual; heaptrack is not part of `make test`): run this test under
    /// heaptrack with `PARLEY_FORWARD_COUNT=500` and `=3000`
    /// (`heaptrack -o out ParleyPackageTests.xctest --testing-library swift-testing --filter
    /// burstsAreForwardedIntact`), then `heaptrack_print -f out.zst -F folded
    /// --flamegraph-cost-type allocations` and sum the stacks through `receiveCallRTP`: outside
    /// libsrtp they stay at 0, and the whole `MediaTransportCore.receive` count outside libsrtp is
    /// the same for both runs (session setup only).
    @Test(.timeLimit(.minutes(1))) func burstsAreForwardedIntact() async throws {
        let total = Int(ProcessInfo.processInfo.environment["PARLEY_FORWARD_COUNT"] ?? "") ?? 400
        let server = try MediaTransportServer()
        let a = try await ClientLeg.connect(to: server)
        let b = try await ClientLeg.connect(to: server)
        #expect(await server.forward(from: a.id, to: b.id))
        var last: UInt16?
        var gaps = 0
        for burst in stride(from: 0, to: total, by: 20) {
            let count = min(20, total - burst)
            for i in burst..<burst + count {
                a.pc.sendAudio(payload: ClientLeg.frame(tag: 7, index: i), timestampIncrement: 960)
            }
            try #require(await b.waitForPackets(count), "stalled at \(burst + b.received.count) of \(total)")
            for packet in b.received {
                if let last, packet.audio.sequenceNumber != last &+ 1 { gaps += 1 }
                last = packet.audio.sequenceNumber
            }
            b.clear()
        }
        #expect(gaps == 0)
        let snapshot = try #require(await server.session(id: b.id))
        #expect(snapshot.counters.rtpForwarded == total && snapshot.counters.srtpErrors == 0)
        await a.close()
        await b.close()
        await server.shutdown()
    }
}
