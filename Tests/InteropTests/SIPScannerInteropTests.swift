import Foundation
import HTTPWire
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// `parley-server --sip` against SIPVicious 0.3 (Debian's `sipvicious`), the scanners attackers
/// run (issue 18 §5): `svwar` finds no user among names that include a real one (a REGISTER
/// without credentials is challenged alike for all), and `svcrack` cracks nothing from a list that
/// holds the real password in 8th place, because five failures from its address refuse it.
@Suite(.serialized, .tags(.interop)) struct SIPScannerInteropTests {
    @Test(.timeLimit(.minutes(2))) func svwarFindsNoUserAndSvcrackCracksNothing() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sipscan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var config = ServerConfiguration()
        (config.port, config.mediaPort, config.databasePath) = (0, 0, dir.appendingPathComponent("parley.db").path)
        config.recordingsDirectory = dir.appendingPathComponent("recordings").path
        (config.sipHost, config.sipPort) = ("127.0.0.1", 0)
        let server = try PlatformServer(configuration: config)
        try server.start()
        let endpoint = try server.store.createEndpoint(accountSid: server.defaultCredentials.account.sid, username: "carol5551234",
                                                       password: "correct-horse", realm: config.sipRealm, alias: "Carol", applicationSid: nil)
        let port = String(try #require(server.sipPorts?.udp))
        let names = dir.appendingPathComponent("names.txt"), passwords = dir.appendingPathComponent("passwords.txt")
        try ["alice", "bob", endpoint.username, "admin", "100"].joined(separator: "\n").write(to: names, atomically: true, encoding: .utf8)
        try ["123456", "password", "carol", "secret", "admin", "qwerty", "letmein", "correct-horse", "hunter2"].joined(separator: "\n")
            .write(to: passwords, atomically: true, encoding: .utf8)

        // svwar, forced past its "every extension is challenged" refusal, with REGISTER and OPTIONS.
        var scans: [String] = []
        for method in ["REGISTER", "OPTIONS"] {
            let svwar = try ChildProcess(executable: "/usr/bin/svwar",
                                         arguments: ["-m", method, "-d", names.path, "--force", "-p", port, "127.0.0.1"])
            _ = await svwar.wait(timeout: .seconds(40))
            scans.append(svwar.stdout + svwar.stderr)
        }
        // svcrack keeps trying after it is refused: it gets 10 s, then is stopped.
        let svcrack = try ChildProcess(executable: "/usr/bin/svcrack",
                                       arguments: ["-u", endpoint.username, "-d", passwords.path, "-p", port, "127.0.0.1"])
        _ = await svcrack.wait(timeout: .seconds(10))
        let cracked = svcrack.stdout + svcrack.stderr
        let client = try HTTPClient()
        let metrics = try await client.send(HTTPRequest(method: "GET", target: "/metrics"), to: "http://127.0.0.1:\(server.port)/metrics",
                                            timeout: .seconds(10))
        client.shutdown()
        await server.shutdown()

        let sip = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("parley_sip") }
        func figure(_ name: String) -> Int { sip.first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1 }
        print("SIP scanners: svwar \(scans.map { $0.suffix(200) }), svcrack \(cracked.suffix(300)), server \(sip)")
        for scan in scans {
            #expect(scan.contains("found nothing") && !scan.contains(endpoint.username), "svwar: \(scan.suffix(1500))")
        }
        #expect(!cracked.contains("correct-horse"), "svcrack: \(cracked.suffix(1500))")
        #expect(figure("parley_sip_registrations_total") == 0)
        #expect(figure("parley_sip_auth_failures_total") == 5, "\(sip)")
        #expect(figure("parley_sip_refused_sources_total") > 0, "\(sip)")
    }
}
