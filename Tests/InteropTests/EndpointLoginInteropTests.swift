import Foundation
import JSONWire
import ParleyCore
import ParleyEndpoint
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Synchronization
import Testing

/// The endpoint SDK logs in to a real `parley-server --sip` (started in this process, as the other
/// SIP interop tests start it) with an endpoint the official `plivo` Python library created through
/// the Plivo Endpoint REST API: REGISTER, the 401 digest answered, the binding in the server's
/// store, then logout removes it (`Expires: 0`); a wrong password ends in `onLoginFailed` with 403.
/// Over UDP and TCP.
@Suite(.serialized, .tags(.interop)) struct EndpointLoginInteropTests {
    static let password = "s3cret-pass"

    /// The `plivo` library creates an endpoint `username` with `password`; returns its SIP username
    /// (Plivo's: the name plus 12 digits).
    static func plivoEndpoint(_ server: PlatformServer, dir: URL, username: String) async throws -> String {
        let account = server.defaultCredentials.account
        let input: JSONObject = ["base": .string("http://127.0.0.1:\(server.port)"), "auth_id": .string(account.authID),
                                 "auth_token": .string(account.authToken), "username": .string(username), "password": .string(password)]
        let out = try await PythonProcess.run(plivoScript, input: .object(input), in: dir)
        return try #require(out.objectValue?["username"]?.stringValue)
    }

    static let plivoScript = """
        import json, sys
        import plivo
        import plivo.rest.client as plivo_client
        cfg = json.load(sys.stdin)
        for name in ("API_VOICE_BASE_URI", "API_VOICE_BASE_URI_FALLBACK_1", "API_VOICE_BASE_URI_FALLBACK_2", "PLIVO_API_BASE_URI"):
            setattr(plivo_client, name, cfg["base"] + "/v1/Account")
        client = plivo.RestClient(cfg["auth_id"], cfg["auth_token"])
        created = client.endpoints.create(username=cfg["username"], password=cfg["password"], alias=cfg["username"].capitalize())
        json.dump({"username": created.username}, sys.stdout)
        """

    /// Records delegate callbacks in order.
    final class Recorder: EndpointDelegate {
        let events = Mutex<[String]>([])
        func onLogin() { events.withLock { $0.append("login") } }
        func onLoginFailed(error: EndpointError) { events.withLock { $0.append("failed \(error.code)") } }
        func onLogout() { events.withLock { $0.append("logout") } }
    }

    static func bindings(_ server: PlatformServer, username: String) throws -> Int {
        server.flushSIPRegistrations()  // the store follows the registrar a few milliseconds behind
        return try server.store.sipBindings(accountSid: server.defaultCredentials.account.sid, aor: "sip:\(username)@127.0.0.1").count
    }

    @Test(.timeLimit(.minutes(2)), arguments: [EndpointOptions.Transport.udp, .tcp])
    func logsInWithAPlivoEndpointAndLogsOut(transport: EndpointOptions.Transport) async throws {
        let (server, dir, _) = try SIPCallInteropTests.startServer("endpoint-login")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let username = try await Self.plivoEndpoint(server, dir: dir, username: "alice")
            let port = try #require(transport == .udp ? server.sipPorts?.udp : server.sipPorts?.tcp)
            let recorder = Recorder()
            let endpoint = try Endpoint(options: EndpointOptions(registrar: "sip:127.0.0.1:\(port)", transport: transport), delegate: recorder)

            // Five logins: REGISTER → 401 → REGISTER with the digest → 200, each timed.
            var timings: [Double] = []
            for _ in 0..<5 {
                let start = ContinuousClock.now
                try await endpoint.login(username: username, password: Self.password, regTimeout: 300)
                timings.append((ContinuousClock.now - start).milliseconds)
                #expect(endpoint.isLoggedIn)
                #expect(try Self.bindings(server, username: username) == 1)
                await endpoint.logout()
                #expect(!endpoint.isLoggedIn)
                #expect(try Self.bindings(server, username: username) == 0)
            }
            let sorted = timings.sorted()
            print("endpoint login over \(transport.rawValue): REGISTER→200 with digest p50 \(sorted[2]) ms (\(sorted.map { Int($0.rounded()) }) ms)")

            // A wrong password: the registrar's 403 reaches the caller and the delegate.
            await #expect(throws: EndpointError.self) { try await endpoint.login(username: username, password: "wrong-password") }
            do {
                try await endpoint.login(username: username, password: "wrong-password")
            } catch {
                #expect(error.code == 403, "\(error)")
                #expect(error.reason.contains("403"), "\(error)")
            }
            #expect(!endpoint.isLoggedIn)
            #expect(try Self.bindings(server, username: username) == 0)

            // Callbacks arrive in order on the delegate queue.
            endpoint.delegateQueue.sync {}
            let events = recorder.events.withLock { $0 }
            #expect(Array(events.prefix(2)) == ["login", "logout"])
            #expect(events.filter { $0 == "login" }.count == 5)
            #expect(events.suffix(2) == ["failed 403", "failed 403"])
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// Over TLS (`sips:`, `--sip-tls` with a self-signed certificate for 127.0.0.1): with that
    /// certificate as the trusted root the endpoint logs in and out; without it the handshake
    /// fails and login fails with 503 and the reason.
    @Test(.timeLimit(.minutes(1))) func logsInOverTLSOnlyWhenTheCertificateIsTrusted() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("parley-endpoint-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (cert, key) = try await TestCertificate.makeSelfSigned(in: scratch)
        let (server, dir, config) = try SIPCallInteropTests.startServer("endpoint-tls") {
            ($0.sipTLSHost, $0.sipTLSPort, $0.tlsCertificatePath, $0.tlsPrivateKeyPath) = ("127.0.0.1", 0, cert, key)
        }
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let account = server.defaultCredentials.account
            let endpoint = try server.store.createEndpoint(accountSid: account.sid, username: "tina", password: Self.password,
                                                           realm: config.sipRealm, alias: "Tina", applicationSid: nil)
            let port = try #require(server.sipPorts?.tls)
            let trusted = try Endpoint(options: EndpointOptions(registrar: "sips:127.0.0.1:\(port)", transport: .tls, tlsTrustRootsPath: cert))
            try await trusted.login(username: endpoint.username, password: Self.password)
            #expect(try Self.bindings(server, username: endpoint.username) == 1)
            await trusted.logout()
            #expect(try Self.bindings(server, username: endpoint.username) == 0)

            let untrusted = try Endpoint(options: EndpointOptions(registrar: "sips:127.0.0.1:\(port)", transport: .tls))
            do {
                try await untrusted.login(username: endpoint.username, password: Self.password)
                Issue.record("logged in over TLS without trusting the certificate")
            } catch {
                #expect(error.code == 503, "\(error)")
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// Bad input is refused before anything is sent, with the reason.
    @Test func refusesBadLoginInput() throws {
        let endpoint = try Endpoint(options: EndpointOptions(registrar: "sip:127.0.0.1:9"))
        #expect(throws: EndpointError.self) { try endpoint.login(username: "alice", password: "pw", regTimeout: 60) }
        #expect(throws: EndpointError.self) { try endpoint.login(username: "", password: "pw") }
        #expect(throws: EndpointError.self) { try endpoint.login(username: "al ice", password: "pw") }
        #expect(throws: EndpointError.self) { try endpoint.login(username: "alice", password: "pw", regTimeout: 31 * 24 * 3600) }
        #expect(throws: EndpointError.self) { try Endpoint(options: EndpointOptions(registrar: "sip:alice@host")) }
        #expect(throws: EndpointError.self) { try Endpoint(options: EndpointOptions(registrar: "sip:127.0.0.1", maxAverageBitrate: 100)) }
        #expect(throws: EndpointError.self) { try endpoint.createOutgoingCall() }
    }
}
