import Foundation
import HTTPWire
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// SIP over WebSocket (RFC 7118) on `parley-server --sip`'s HTTP listener, against a Python client
/// built on the `websockets` library (`SIPWebSocketClientScript`): an upgrade without the `sip`
/// subprotocol is refused; a 70 KB message closes its socket (1009); the client REGISTERs with an
/// MD5 digest and its binding keeps the `ws:` source; bytes that are not SIP are dropped and a bad
/// request answered 400 on a socket that goes on serving; then the WebRTC client alice's TwiML
/// `<Dial><Sip>` reaches the registered contact down that WebSocket, the client answers with plain
/// RTP and echoes it, and alice hears her own tone; her hang-up is a BYE on the socket.
@Suite(.serialized, .tags(.interop)) struct SIPWebSocketInteropTests {
    @Test(.timeLimit(.minutes(2))) func aWebSocketClientRegistersAndIsCalledDownItsSocket() async throws {
        let (server, dir, config) = try SIPCallInteropTests.startServer("sipws")
        defer { try? FileManager.default.removeItem(at: dir) }
        let credentials = server.defaultCredentials
        let (endpoint, app, application) = try SIPCallInteropTests.dialSipSetup(server, config: config, username: "dave")
        let settings = ["url": "ws://127.0.0.1:\(server.port)/sip", "user": endpoint.username, "password": "s3cret-pw", "domain": "127.0.0.1"]
        let client = try SIPWebSocketClientScript.start(settings)
        defer { client.kill() }

        let ready = await client.waitForJSON(key: "ready", timeout: .seconds(30))
        server.flushSIPRegistrations()
        let bindings = try server.store.sipBindings(accountSid: credentials.account.sid, aor: "sip:\(endpoint.username)@127.0.0.1")
        var echoed = 0.0
        if ready != nil {
            let call = try await SIPToneCall.run(server, applicationSid: application.sid, to: endpoint.username)
            echoed = try ToneAudio.dominantFrequency(ofOpus: Array(call.frames.dropFirst(75)), analysisSeconds: 1.5)
        }
        let bye = await client.waitForJSON(key: "bye", timeout: .seconds(10))
        let exited = await client.wait(timeout: .seconds(5))
        let metrics = try await Self.metrics(server)
        await app.shutdown()
        await server.shutdown()
        let lines = client.jsonLines
        func value(_ key: String) -> Any? { lines.first { $0[key] != nil }?[key] }
        print("SIP over WebSocket: \(lines); alice heard \(echoed) Hz; binding sources \(bindings.map(\.source)); \(metrics)")

        #expect(value("refused") as? Int == 400)
        #expect(value("oversized") as? Int == 1009)
        #expect(value("subprotocol") as? String == "sip")
        #expect(value("challenge") as? Int == 401 && value("registered") as? Int == 200, "\(client.stderr.suffix(2000))")
        #expect((value("contact") as? String)?.contains(".invalid;transport=ws>") == true)
        #expect(value("invalid") as? Int == 400 && value("options") as? Int == 200)
        #expect(ready != nil, "\(client.stdout.suffix(2000))\n\(client.stderr.suffix(2000))")
        #expect(bindings.count == 1 && bindings.first?.source.hasPrefix("ws:127.0.0.1:") == true, "\(bindings)")
        // The INVITE to the contact, over the socket: our Via says WS (RFC 7118 §5.2).
        #expect((value("invite") as? String)?.hasPrefix("INVITE sip:\(endpoint.username)@") == true)
        #expect((value("via") as? String)?.hasPrefix("SIP/2.0/WS ") == true)
        #expect((value("invite_contact") as? String)?.contains(";transport=ws") == true && value("ack") as? Bool == true)
        #expect(abs(echoed - 600) < 20, "\(client.stdout.suffix(2000))\n\(client.stderr.suffix(2000))")
        #expect((bye?["echoed"] as? Int ?? 0) > 50 && exited, "\(client.stderr.suffix(2000))")
        #expect(metrics["parley_sip_oversized_total"] == 1 && (metrics["parley_sip_malformed_total"] ?? 0) >= 2, "\(metrics)")
    }

    /// The `parley_sip_*` lines of `/metrics` (or those starting with `prefix`).
    static func metrics(_ server: PlatformServer, prefix: String = "parley_sip_") async throws -> [String: Int] {
        let client = try HTTPClient()
        defer { client.shutdown() }
        let response = try await client.send(HTTPRequest(method: "GET", target: "/metrics"), to: "http://127.0.0.1:\(server.port)/metrics",
                                             timeout: .seconds(10))
        var figures: [String: Int] = [:]
        for line in String(decoding: response.body, as: UTF8.self).split(separator: "\n") where line.hasPrefix(prefix) {
            let parts = line.split(separator: " ")
            if parts.count == 2, let n = Int(parts[1]) { figures[String(parts[0])] = n }
        }
        return figures
    }
}
