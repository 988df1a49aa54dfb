import Foundation
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// The per-address INVITE/REGISTER rate limit (`--sip-request-rate`) against a sipp flood: a
/// `parley-server` allowing 5 a second (bursts of 10) gets 80 REGISTERs from one address within
/// about a second; it answers the first ones, refuses the excess with `503` (once a second) and
/// drops the rest, counts both in `/metrics`, and registers the address again once its bucket refills.
@Suite(.serialized, .tags(.interop)) struct SIPFloodInteropTests {
    @Test(.timeLimit(.minutes(2))) func aRegisterFloodFromOneAddressIsRefusedThenServedAgain() async throws {
        let (server, dir, config) = try SIPCallInteropTests.startServer("sipflood") { $0.sipRequestRate = 5 }
        defer { try? FileManager.default.removeItem(at: dir) }
        let endpoint = try server.store.createEndpoint(accountSid: server.defaultCredentials.account.sid, username: "flood",
                                                       password: "s3cret-pw", realm: config.sipRealm, alias: "Flood", applicationSid: nil)
        let port = try #require(server.sipPorts?.udp)
        let scenario = SIPRegistrarInteropTests.scenario(user: endpoint.username, password: "s3cret-pw", expires: 600, final: 200)
        let file = dir.appendingPathComponent("flood.xml")
        try scenario.write(to: file, atomically: true, encoding: .utf8)
        // 40 registrations (80 REGISTERs) at 40 a second, each step given up after 2 s.
        let flood = try ChildProcess(executable: "/usr/bin/sipp", arguments: [
            "127.0.0.1:\(port)", "-sf", file.path, "-m", "40", "-r", "40", "-l", "40", "-i", "127.0.0.1",
            "-p", "\(try SIPTrunkInteropTests.freeUDPPort())", "-mp", "0", "-cp", "0", "-t", "u1",
            "-recv_timeout", "2000", "-timeout", "30", "-nostdin",
        ])
        defer { flood.kill() }
        let floodEnded = await flood.wait(timeout: .seconds(40))

        func figures() async throws -> [String: Int] { try await SIPWebSocketInteropTests.metrics(server) }
        let afterFlood = try await figures()
        // Once the bucket refills, one more registration from the same address goes through.
        var served = false
        let deadline = ContinuousClock.now + .seconds(10)
        while !served, ContinuousClock.now < deadline {
            served = try await SIPRegistrarInteropTests.sipp(scenario, port: port, in: dir).passed
            if !served { try await Task.sleep(for: .milliseconds(500)) }
        }
        print("SIP flood with sipp (80 REGISTERs, limit 5/s, bursts of 10): registered \(afterFlood["parley_sip_registrations_total"] ?? -1), "
              + "503 \(afterFlood["parley_sip_rate_limited_total"] ?? -1), dropped \(afterFlood["parley_sip_rate_limit_dropped_total"] ?? -1), "
              + "challenged \(afterFlood["parley_sip_challenges_total"] ?? -1); served again afterwards \(served)")
        await server.shutdown()
        #expect(floodEnded)
        #expect((afterFlood["parley_sip_rate_limited_total"] ?? 0) >= 1)
        #expect((afterFlood["parley_sip_rate_limit_dropped_total"] ?? 0) >= 10)
        #expect((afterFlood["parley_sip_registrations_total"] ?? 0) < 40)
        #expect(served)
    }
}
