import ICE
import ParleyCrypto
import ParleyNet
import SDP
import STUN
import Testing
@testable import WebRTC

/// Sessions that never connect end by themselves and leave the registry.
@Suite struct SessionTimeoutTests {
    @Test(.timeLimit(.minutes(1))) func unconnectedSessionsFailAndAreRemoved() async throws {
        var config = MediaTransportServer.Configuration()
        config.connectTimeout = .milliseconds(400)
        let server = try MediaTransportServer(configuration: config)
        let loop = try EventLoop(name: "test-timeout-client")
        let inbox = Inbox()
        let socket = try UDPSocket(host: "127.0.0.1", port: 0, loop: loop) { inbox.push($0) }

        // One session gets no check at all (ICE failure, 53405); the other passes ICE but never
        // starts DTLS (53407).
        let silent = try await server.createEchoSession(offer: makeOffer())
        let iceOnly = try await server.createEchoSession(offer: makeOffer())
        let audio = try #require(try SessionDescription(parsing: iceOnly.sdp).media.first)
        let check = STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(high: 1, low: 2), attributes: [
            .username("\(audio.iceUfrag ?? ""):cliU"), .priority(1), .iceControlling(9), .useCandidate,
        ])
        let bytes = try check.serialized(integrity: .sha1(key: Array((audio.icePwd ?? "").utf8),
                                                          hmac: { HMAC.sha1(key: $0, message: $1) }), fingerprint: true)
        socket.send([Datagram(address: try SocketAddress.resolve(host: "127.0.0.1", port: server.localPort), bytes: bytes)])
        #expect(await inbox.next(where: { $0 == .stun }) != nil)
        #expect(await server.session(id: iceOnly.id)?.iceConnectedAfter != nil)

        let deadline = ContinuousClock.now + .seconds(5)
        while await server.statistics().sessions > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let stats = await server.statistics()
        #expect(stats.sessions == 0)
        #expect(stats.sessionsFailed == 2)
        #expect(await server.session(id: silent.id) == nil)
        #expect(await server.closeSession(id: iceOnly.id) == false)
        socket.close()
        loop.stop()
        await server.shutdown()
    }
}
