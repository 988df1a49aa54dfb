import AccessToken
import Foundation
import HTTPWire
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing
import WebRTC

/// aiortc (a second, independent WebRTC stack) offers audio to `POST /v1/echo` of an in-process
/// `PlatformServer` and must get its own tone back: ICE-lite, DTLS-SRTP, the SRTP echo with our
/// SSRC, RTCP, then DELETE ends the session.
///
/// Needs the project venv (`.venv` with aiortc and numpy); without it the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct EchoInteropTests {
    static func startServer() throws -> PlatformServer {
        var config = ServerConfiguration()
        config.port = 0
        config.mediaPort = 0
        config.recordingsDirectory = NSTemporaryDirectory() + "parley-recordings-\(getpid())"
        let server = try PlatformServer(configuration: config, store: InMemoryAccountStore())
        try server.start()
        return server
    }

    static func token(_ server: PlatformServer) throws -> String {
        let creds = server.defaultCredentials
        return try AccessTokenBuilder.mint(accountSid: creds.account.sid, apiKeySid: creds.apiKey.sid,
                                           apiSecret: creds.apiKey.secret, identity: "echo_tester", ttl: 600,
                                           grants: [.voice(VoiceGrant(incomingAllow: true))],
                                           now: Int64(Date().timeIntervalSince1970))
    }

    @Test(.timeLimit(.minutes(2))) func aiortcGetsItsToneEchoed() async throws {
        let server = try Self.startServer()
        let token = try Self.token(server)
        let url = "http://127.0.0.1:\(server.port)/v1/echo"
        let client = try PythonEchoClient(arguments: [url, token, "5.5"])
        defer { client.kill() }

        // Watch the server side while aiortc runs: the last snapshot of the (one) session.
        var lastSnapshot: PeerSessionSnapshot?
        var sawSession = false
        let deadline = ContinuousClock.now + .seconds(45)
        while client.isRunning, ContinuousClock.now < deadline {
            if let s = await server.media.sessions().first {
                lastSnapshot = s
                sawSession = true
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let exited = await client.wait(timeout: .seconds(5))
        #expect(exited, "aiortc client did not finish in time")
        let r = try client.result()
        let stats = await server.media.statistics()
        await server.shutdown()

        print("aiortc echo result: \(r)")
        if let s = lastSnapshot {
            print("server session: state \(s.state), ICE connected after \(s.iceConnectedAfter.map { "\($0)" } ?? "-"), "
                  + "DTLS after \(s.dtlsConnectedAfter.map { "\($0)" } ?? "-"), connected after \(s.connectedAfter.map { "\($0)" } ?? "-"), "
                  + "counters \(s.counters), jitter \(s.jitter), lost \(s.cumulativeLost)")
        }
        print("media stats: \(stats)")
        print("offer → connected (aiortc, POST to connectionState connected): \(r["offer_to_connected_ms"] ?? "-") ms")

        #expect(r["post_status"] as? Int == 201, "POST failed: \(r["error"] ?? "")")
        #expect((r["location"] as? String)?.hasPrefix("/v1/echo/") == true)
        #expect(r["content_type"] as? String == "application/sdp")
        #expect(r["cors_origin"] as? String == "*")
        #expect((r["expose"] as? String)?.contains("Location") == true)
        #expect(r["answer_ice_lite"] as? Bool == true)
        #expect(r["connected"] as? Bool == true, "not connected: \(r["error"] ?? "") states \(r["states"] ?? "")")
        let frames = r["frames"] as? Int ?? 0
        #expect(frames >= 200, "only \(frames) echoed frames")
        let dominant = r["dominant_hz"] as? Double ?? 0
        let xcorr = r["xcorr"] as? Double ?? 0
        #expect(abs(dominant - 440) <= 20 || xcorr > 0.5, "echo does not match the tone: \(dominant) Hz, xcorr \(xcorr)")
        #expect(abs(dominant - 440) <= 20, "dominant \(dominant) Hz")
        #expect(xcorr > 0.5, "xcorr \(xcorr)")
        #expect(r["delete_status"] as? Int == 200)
        #expect(r["delete_again_status"] as? Int == 404)
        #expect((r["frames_after_delete"] as? Int ?? 99) <= 15, "echo kept flowing after DELETE")

        #expect(sawSession)
        if let s = lastSnapshot {
            #expect(s.state == .connected)
            #expect(s.counters.rtpEchoed >= 200)
            #expect(s.remoteSSRC != nil && s.remoteSSRC != s.localSSRC)
            #expect(s.counters.srtpErrors == 0)
        }
        #expect(stats.sessions == 0, "session still open after DELETE")
        #expect(stats.sessionsCreated == 1)
    }

    @Test func corsPreflightAndErrors() async throws {
        let server = try Self.startServer()
        let http = try HTTPClient()
        let base = "http://127.0.0.1:\(server.port)"
        defer { http.shutdown() }
        let preflight = try await http.send(HTTPRequest(method: "OPTIONS", target: "/v1/echo",
                                                        headers: ["Origin": "https://app.example",
                                                                  "Access-Control-Request-Method": "POST"]),
                                            to: base + "/v1/echo")
        #expect(preflight.status == 204)
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(preflight.headers["Access-Control-Allow-Methods"]?.contains("POST") == true)
        #expect(preflight.headers["Access-Control-Allow-Methods"]?.contains("DELETE") == true)
        #expect(preflight.headers["Access-Control-Allow-Headers"]?.contains("Authorization") == true)
        #expect(preflight.headers["Access-Control-Allow-Headers"]?.contains("Content-Type") == true)
        #expect(preflight.headers["Access-Control-Expose-Headers"]?.contains("Location") == true)

        let noToken = try await http.send(HTTPRequest(method: "POST", target: "/v1/echo",
                                                      headers: ["Content-Type": "application/sdp"],
                                                      body: Array("v=0\r\n".utf8)), to: base + "/v1/echo")
        #expect(noToken.status == 401)
        let token = try Self.token(server)
        let junk = try await http.send(HTTPRequest(method: "POST", target: "/v1/echo",
                                                   headers: ["Content-Type": "application/sdp",
                                                             "Authorization": "Bearer \(token)"],
                                                   body: Array("hello".utf8)), to: base + "/v1/echo")
        #expect(junk.status == 400)
        #expect(junk.bodyText.contains("5340"))
        let unknown = try await http.send(HTTPRequest(method: "DELETE", target: "/v1/echo/nope",
                                                      headers: ["Authorization": "Bearer \(token)"]),
                                          to: base + "/v1/echo/nope")
        #expect(unknown.status == 404)
        await server.shutdown()
    }

    @Test func mediaFlagParses() throws {
        let config = try ServerConfiguration.parse(["--media", "0.0.0.0:40000", "--http", "127.0.0.1:0"])
        #expect(config.mediaHost == "0.0.0.0" && config.mediaPort == 40000)
        #expect(ServerConfiguration().mediaHost == "127.0.0.1" && ServerConfiguration().mediaPort == 0)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.parse(["--media", "nope"]) }
    }
}
