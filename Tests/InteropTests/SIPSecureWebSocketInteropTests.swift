import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// SIP over secure WebSocket (RFC 7118 `wss`): `parley-server` with `--tls-cert`/`--tls-key` serves
/// HTTPS, and `/sip` upgrades over TLS. The Python `websockets` client (`SIPWebSocketClientScript`)
/// checks the server's certificate against the test's own, REGISTERs with a `WSS` Via, and is
/// called down its socket by a call the `twilio` library creates over HTTPS (`sip:<user>@…`): our
/// INVITE's Via says `WSS`, the binding's source is `wss:`, and the call's hang-up is a BYE on the socket.
@Suite(.serialized, .tags(.interop)) struct SIPSecureWebSocketInteropTests {
    @Test(.timeLimit(.minutes(2))) func aSecureWebSocketClientRegistersAndIsCalledOverTLS() async throws {
        let certificates = FileManager.default.temporaryDirectory.appendingPathComponent("parley-wss-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: certificates, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: certificates) }
        let (cert, key) = try await TestCertificate.makeSelfSigned(in: certificates)
        let (server, dir, config) = try SIPCallInteropTests.startServer("sipwss") {
            ($0.tlsCertificatePath, $0.tlsPrivateKeyPath) = (cert, key)
        }
        defer { try? FileManager.default.removeItem(at: dir) }
        let account = server.defaultCredentials.account.sid
        let (endpoint, app, _) = try SIPCallInteropTests.dialSipSetup(server, config: config, username: "erin")
        app.set("/voice", #"<Response><Pause length="2"/><Hangup/></Response>"#)
        app.set("/status", "<Response/>")
        let settings = ["url": "wss://127.0.0.1:\(server.port)/sip", "user": endpoint.username, "password": "s3cret-pw",
                        "domain": "127.0.0.1", "cafile": cert]
        let client = try SIPWebSocketClientScript.start(settings)
        defer { client.kill() }
        let ready = await client.waitForJSON(key: "ready", timeout: .seconds(30))
        server.flushSIPRegistrations()
        let bindings = try server.store.sipBindings(accountSid: account, aor: "sip:\(endpoint.username)@127.0.0.1")
        var created: JSONObject = [:]
        if ready != nil {
            created = try await SIPRESTCallInteropTests.python(server, app: app, dir: dir, [
                "base": .string("https://127.0.0.1:\(server.port)"), "cafile": .string(cert),
                "step": .string("create"), "to": .string("sip:\(endpoint.username)@127.0.0.1"),
            ])
        }
        let bye = await client.waitForJSON(key: "bye", timeout: .seconds(15))
        var call: CallRecord?
        if let sid = created["sid"]?.stringValue { call = try await SIPRESTCallInteropTests.finalCall(server, sid: sid) }
        let lines = client.jsonLines
        func value(_ key: String) -> Any? { lines.first { $0[key] != nil }?[key] }
        print("SIP over wss: \(lines); binding sources \(bindings.map(\.source)); REST \(created); call \(call?.status.rawValue ?? "-")")
        await app.shutdown()
        await server.shutdown()

        #expect(value("subprotocol") as? String == "sip")
        #expect(value("challenge") as? Int == 401 && value("registered") as? Int == 200, "\(client.stderr.suffix(2000))")
        #expect(ready != nil, "\(client.stdout.suffix(2000))\n\(client.stderr.suffix(2000))")
        #expect(bindings.count == 1 && bindings.first?.source.hasPrefix("wss:127.0.0.1:") == true, "\(bindings)")
        #expect((value("via") as? String)?.hasPrefix("SIP/2.0/WSS ") == true, "\(lines)")
        #expect(value("ack") as? Bool == true && bye != nil, "\(client.stderr.suffix(2000))")
        #expect(call?.status == .completed, "\(created)")
    }
}
