import Foundation
import HTTPWire
import ParleyServer
import ParleyNet
import ParleyTestSupport
import ParleyStore
import SIP
import SIPGateway
import SIPWire
import Testing

/// The registrar against sipp (Debian's sip-tester 3.6), a real SIP peer: REGISTER with MD5 digest
/// succeeds with the right password and is refused alike for a wrong password and an unknown user;
/// `Expires: 0` unregisters; the bindings are in the store. The registrar runs in process on a real
/// UDP socket (`SIPTransport`), the store is real SQLite.
@Suite(.serialized, .tags(.interop)) struct SIPRegistrarInteropTests {
    static let realm = "parley.test"

    /// A one-call sipp scenario: REGISTER, the 401 challenge, REGISTER with credentials, then `final`.
    static func scenario(user: String, password: String, expires: Int, final: Int) -> String {
        let register = { (cseq: Int, auth: Bool) in
            """
              <send retrans="500">
                <![CDATA[
                  REGISTER sip:\(realm) SIP/2.0
                  Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
                  From: <sip:\(user)@\(realm)>;tag=[call_number]
                  To: <sip:\(user)@\(realm)>
                  Call-ID: [call_id]
                  CSeq: \(cseq) REGISTER
                  Contact: <sip:\(user)@[local_ip]:[local_port];transport=[transport]>\(auth ? "\n      [authentication username=\(user) password=\(password)]" : "")
                  Max-Forwards: 70
                  Expires: \(expires)
                  Content-Length: 0

                ]]>
              </send>
            """
        }
        return """
            <?xml version="1.0" encoding="ISO-8859-1" ?>
            <scenario name="register">
            \(register(1, false))
              <recv response="401" auth="true"/>
            \(register(2, true))
              <recv response="\(final)"/>
            </scenario>
            """
    }

    /// Runs one sipp REGISTER exchange against `port`; true when sipp saw the expected final response.
    static func sipp(_ scenario: String, port: Int, in dir: URL, transport: String = "u1") async throws -> (passed: Bool, log: String) {
        let file = dir.appendingPathComponent("scenario-\(UUID().uuidString).xml")
        try scenario.write(to: file, atomically: true, encoding: .utf8)
        let sipp = try ChildProcess(executable: "/usr/bin/sipp", arguments: [
            "127.0.0.1:\(port)", "-sf", file.path, "-m", "1", "-i", "127.0.0.1", "-p", "0", "-mp", "0", "-cp", "0", "-t", transport,
            "-timeout", "15", "-timeout_error", "-nostdin", "-trace_err", "-error_file", dir.appendingPathComponent("errors.log").path,
        ])
        defer { sipp.kill() }
        let ended = await sipp.wait(timeout: .seconds(20))
        let errors = (try? String(contentsOf: dir.appendingPathComponent("errors.log"), encoding: .utf8)) ?? ""
        return (ended && sipp.process.terminationStatus == 0, "exit \(sipp.process.terminationStatus)\n\(sipp.stderr.suffix(1500))\n\(errors.suffix(1500))")
    }

    @Test(.timeLimit(.minutes(2))) func sippRegistersWithDigestAndIsRefusedAlikeForAWrongPasswordOrAnUnknownUser() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SQLiteAccountStore(path: dir.appendingPathComponent("parley.db").path)
        let account = try store.createAccount(friendlyName: "SIP")
        let directory = StaticSIPCredentials([SIPCredential(accountSid: account.sid, username: "alice", password: "wonderland", realm: Self.realm)])
        let registrar = SIPRegistrarService(configuration: .init(realm: Self.realm), directory: directory, store: store)
        let loop = try EventLoop(name: "sip")
        defer { loop.stop() }
        let transport = SIPTransport(configuration: .init(host: "127.0.0.1", port: 0), loop: loop) { message, peer in
            registrar.handle(message, from: peer)
        }
        registrar.attach(transport)
        try transport.start()
        defer { transport.stop() }
        let port = transport.udpPort

        let registered = try await Self.sipp(Self.scenario(user: "alice", password: "wonderland", expires: 600, final: 200), port: port, in: dir)
        #expect(registered.passed, "\(registered.log)")
        let bindings = registrar.bindings(accountSid: account.sid, user: "alice", domain: Self.realm)
        #expect(bindings.count == 1 && bindings.first?.contact.hasPrefix("sip:alice@127.0.0.1:") == true, "\(bindings)")
        #expect(bindings.first.map { $0.expiresAt - Date().timeIntervalSince1970 } ?? 0 > 590)
        #expect(bindings.first?.source.hasPrefix("udp:127.0.0.1:") == true)

        let wrong = try await Self.sipp(Self.scenario(user: "alice", password: "guess", expires: 600, final: 403), port: port, in: dir)
        #expect(wrong.passed, "\(wrong.log)")
        let unknown = try await Self.sipp(Self.scenario(user: "mallory", password: "wonderland", expires: 600, final: 403), port: port, in: dir)
        #expect(unknown.passed, "\(unknown.log)")

        let unregistered = try await Self.sipp(Self.scenario(user: "alice", password: "wonderland", expires: 0, final: 200), port: port, in: dir)
        #expect(unregistered.passed, "\(unregistered.log)")
        #expect(registrar.bindings(accountSid: account.sid, user: "alice", domain: Self.realm).isEmpty)
        registrar.flush()  // the store is written a few milliseconds behind
        #expect(try store.sipBindingCount() == 0)
        let statistics = registrar.statistics
        print("SIP registrar with sipp: \(statistics), transport \(transport.statistics)")
        #expect(statistics.rejected == 2 && statistics.registered == 2 && statistics.challenged == 4)
    }

    /// `parley-server --sip` end to end: an endpoint made as the Plivo Endpoint API makes them (in
    /// the SQLite store, hashed for the server's realm) registers from sipp over TCP; the binding
    /// is in the store, survives a restart of the server on the same file, and `/metrics` counts it.
    @Test(.timeLimit(.minutes(2))) func anEndpointRegistersOverTCPWithTheServerAndTheBindingSurvivesARestart() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var config = ServerConfiguration()
        (config.port, config.mediaPort, config.databasePath) = (0, 0, dir.appendingPathComponent("parley.db").path)
        config.recordingsDirectory = dir.appendingPathComponent("recordings").path
        (config.sipHost, config.sipPort) = ("127.0.0.1", 0)
        let server = try PlatformServer(configuration: config)
        try server.start()
        let account = server.defaultCredentials.account.sid
        let endpoint = try server.store.createEndpoint(accountSid: account, username: "bob4242", password: "s3cret-pw", realm: config.sipRealm,
                                                       alias: "Bob", applicationSid: nil)
        let port = try #require(server.sipPorts?.tcp)
        let registered = try await Self.sipp(Self.scenario(user: endpoint.username, password: "s3cret-pw", expires: 300, final: 200),
                                             port: port, in: dir, transport: "t1")
        let wrong = try await Self.sipp(Self.scenario(user: endpoint.username, password: "nope", expires: 300, final: 403),
                                        port: port, in: dir, transport: "t1")
        let client = try HTTPClient()
        let response = try await client.send(HTTPRequest(method: "GET", target: "/metrics"), to: "http://127.0.0.1:\(server.port)/metrics",
                                             timeout: .seconds(10))
        client.shutdown()
        let (status, body) = (response.status, String(decoding: response.body, as: UTF8.self))
        await server.shutdown()
        #expect(registered.passed, "\(registered.log)")
        #expect(wrong.passed, "\(wrong.log)")
        #expect(status == 200 && body.contains("parley_sip_registrations_total 1") && body.contains("parley_sip_auth_failures_total 1"),
                "\(body.split(separator: "\n").filter { $0.contains("parley_sip") })")

        // The same file, a new server: the binding is still there, with its TCP source.
        let again = try PlatformServer(configuration: config)
        try again.start()
        let bindings = try again.store.sipBindings(accountSid: account, aor: "sip:\(endpoint.username)@\(Self.realm)")
        await again.shutdown()
        #expect(bindings.count == 1 && bindings.first?.source.hasPrefix("tcp:127.0.0.1:") == true, "\(bindings)")
    }
}
