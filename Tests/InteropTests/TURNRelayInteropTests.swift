import Foundation
import ICE
import ParleyCrypto
import ParleyServer
import ParleyTestSupport
import Testing
import WebRTC

/// Our `PeerConnection` with transport policy `.relay` reaches `POST /v1/echo` only through a
/// local coturn (Debian's `turnserver`): first with a static long-term user, then with coturn's
/// REST credentials (`use-auth-secret`) made by `TURNRESTCredentials`. Echoed Opus must come back
/// and the selected local candidate must be the relayed one.
///
/// Needs `turnserver` (apt `coturn`, see scripts/install-deps); without it the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct TURNRelayInteropTests {
    @Test(.timeLimit(.minutes(1))) func relayOnlyCallWithLongTermCredentials() async throws {
        let port = UInt16.random(in: 41_000...44_000)
        let coturn = try await Self.startCoturn(port: port, auth: ["--lt-cred-mech", "--user=parley:secret"])
        defer { coturn.kill() }
        let turn = TURNServer(address: ICETransportAddress("127.0.0.1", port: port)!, username: "parley", password: "secret")
        try await Self.relayCall(through: turn, coturn: coturn)
    }

    @Test(.timeLimit(.minutes(1))) func relayOnlyCallWithRESTCredentials() async throws {
        let port = UInt16.random(in: 44_001...47_000)
        let secret = "parley-rest-secret-\(UInt32.random(in: 0...UInt32.max))"
        let coturn = try await Self.startCoturn(port: port, auth: ["--use-auth-secret", "--static-auth-secret=\(secret)"])
        defer { coturn.kill() }
        let expires = UInt64(Date().timeIntervalSince1970) + 600
        let turn = TURNRESTCredentials.server(ICETransportAddress("127.0.0.1", port: port)!, user: "pc_tester",
                                              secret: secret, expiresAt: expires,
                                              hmac: { HMAC.sha1(key: $0, message: $1) })
        try await Self.relayCall(through: turn, coturn: coturn)
    }

    static func startCoturn(port: UInt16, auth: [String]) async throws -> ChildProcess {
        let coturn = try ChildProcess(executable: Coturn.executable, arguments: Coturn.arguments(port: port, auth: auth))
        guard await coturn.waitForOutput(Coturn.readyLine, timeout: .seconds(5)) else {
            let out = coturn.stdout.suffix(3000)
            coturn.kill()
            throw ClientInterop.Failure(description: "coturn did not start on port \(port):\n\(out)\n\(coturn.stderr.suffix(2000))")
        }
        try await Task.sleep(for: .milliseconds(300))  // its listeners open just after the servers start
        return coturn
    }

    static func relayCall(through turn: TURNServer, coturn: ChildProcess) async throws {
        let (server, token) = try ClientInterop.startEchoServer()
        var configuration = PeerConnection.Configuration(iceServers: [.turn(turn)], transportPolicy: .relay)
        configuration.rtcpInterval = .milliseconds(500)
        let pc = try PeerConnection(configuration: configuration)
        let offer = try await pc.createOffer()
        #expect(offer.contains("typ relay"), "offer has no relay candidate:\n\(offer)\ncoturn:\n\(coturn.stdout.suffix(3000))")
        #expect(!offer.contains("typ host"), "relay policy leaked a host candidate:\n\(offer)")
        let answer = try await ClientInterop.postOffer(offer, server: server, token: token)
        try await pc.setRemoteAnswer(answer)
        let connected = await pc.waitUntilConnected(timeout: .seconds(10))
        let atConnect = await pc.statistics()
        let why = "not connected through TURN: \(atConnect.state) ICE \(atConnect.iceState) "
            + "\(atConnect.failure.map { "\($0)" } ?? "")\ncoturn:\n\(coturn.stdout.suffix(3000))"
        #expect(connected, "\(why)")
        guard connected else {
            await pc.close()
            await server.shutdown()
            return
        }
        print("PeerConnection via coturn (\(turn.username)): offer → connected "
              + "\(atConnect.timings.offerToConnected.map { "\($0)" } ?? "-"), timings \(atConnect.timings), "
              + "selected \(atConnect.localCandidate.map { "\($0)" } ?? "-") → \(atConnect.remoteCandidate.map { "\($0)" } ?? "-")")
        #expect(atConnect.localCandidate?.type == .relay)

        let collector = ClientInterop.collect(pc)
        try await ClientInterop.sendTone(pc, frequency: 440, seconds: 2)
        let deadline = ContinuousClock.now + .seconds(3)
        var stats = await pc.statistics()
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            stats = await pc.statistics()
            if stats.packetsReceived >= stats.packetsSent, stats.roundTripTimeSamples > 0 { break }
        }
        await pc.close()
        let frames = await collector.value
        await server.shutdown()
        print("relay call stats: sent \(stats.packetsSent), received \(stats.packetsReceived), RTT "
              + "\(stats.roundTripTime.map { "\($0)" } ?? "-"), lost \(stats.cumulativeLost)")
        #expect(stats.localCandidate?.type == .relay)
        #expect(frames.count >= 90, "only \(frames.count) echoed frames through the relay")
        let dominant = try ClientInterop.dominantFrequency(ofOpus: frames)
        #expect(abs(dominant - 440) <= 15, "echo through the relay decoded at \(dominant) Hz")
    }
}
