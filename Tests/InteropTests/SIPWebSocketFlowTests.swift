import Foundation
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// A SIP-over-WebSocket binding lasts as long as its socket (RFC 5626 §5.3, RFC 7118 §5.3:
/// nothing else reaches the client): the Python client (`SIPWebSocketClientScript`) registers with
/// `expires=600`, closes its socket, and the binding is gone from the store well before it expires.
@Suite(.serialized, .tags(.interop)) struct SIPWebSocketFlowTests {
    @Test(.timeLimit(.minutes(1))) func aWebSocketFlowsBindingsGoWhenItsSocketCloses() async throws {
        let (server, dir, config) = try SIPCallInteropTests.startServer("sipwsclose")
        defer { try? FileManager.default.removeItem(at: dir) }
        let account = server.defaultCredentials.account.sid
        let endpoint = try server.store.createEndpoint(accountSid: account, username: "erin", password: "s3cret-pw",
                                                       realm: config.sipRealm, alias: "Erin", applicationSid: nil)
        let settings: [String: Any] = ["url": "ws://127.0.0.1:\(server.port)/sip", "user": endpoint.username, "password": "s3cret-pw",
                                       "domain": "127.0.0.1", "close_after_register": 1.5]
        let client = try SIPWebSocketClientScript.start(settings)
        defer { client.kill() }
        let registered = await client.waitForJSON(key: "registered", timeout: .seconds(30))
        let aor = "sip:\(endpoint.username)@127.0.0.1"
        // The store has the binding (written behind) while the socket is open…
        let bound = try await Self.poll { try server.store.sipBindings(accountSid: account, aor: aor).count == 1 }
        let exited = await client.wait(timeout: .seconds(10))
        // …and loses it once the close has reached SIP's loop and the next batch is written.
        let unbound = try await Self.poll { try server.store.sipBindings(accountSid: account, aor: aor).isEmpty }
        await server.shutdown()
        #expect(registered?["registered"] as? Int == 200, "\(client.stdout.suffix(2000))\n\(client.stderr.suffix(2000))")
        #expect(exited)
        #expect(bound && unbound)
    }

    /// Whether `condition` held within 5 s.
    static func poll(_ condition: () throws -> Bool) async throws -> Bool {
        for _ in 0..<100 {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
