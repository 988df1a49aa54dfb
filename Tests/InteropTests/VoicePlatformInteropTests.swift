import AccessToken
import Foundation
import JSONWire
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// The voice platform against Twilio's own Python library: an application created with
/// `client.applications.create`, a TwiML app whose every request (Voice URL and status callbacks)
/// is checked by `twilio.request_validator.RequestValidator`, a real call between two clients, and
/// the live call listed, fetched and hung up with `client.calls(sid).update(status="completed")`.
@Suite(.tags(.interop)) struct VoicePlatformInteropTests {
    /// A TwiML application in Python: answers `/voice` with a `<Dial>` to bob, `/status` with 204,
    /// and appends `{"path", "valid", "params"}` to a log file for every request.
    static let appScript = """
    import json, sys, urllib.parse
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from twilio.request_validator import RequestValidator
    token, log_path, port_path = sys.argv[1], sys.argv[2], sys.argv[3]
    validator = RequestValidator(token)
    class App(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get('Content-Length', 0))).decode()
            params = dict(urllib.parse.parse_qsl(body, keep_blank_values=True))
            url = 'http://127.0.0.1:%d%s' % (self.server.server_port, self.path)
            valid = validator.validate(url, params, self.headers.get('X-Twilio-Signature', ''))
            with open(log_path, 'a') as f:
                f.write(json.dumps({'path': self.path, 'valid': valid, 'params': params}) + '\\n')
            if self.path == '/voice':
                out = b'<?xml version="1.0" encoding="UTF-8"?><Response><Dial><Client>bob</Client></Dial></Response>'
                self.send_response(200); self.send_header('Content-Type', 'text/xml')
                self.send_header('Content-Length', str(len(out))); self.end_headers(); self.wfile.write(out)
            else:
                self.send_response(204); self.end_headers()
        def log_message(self, *args): pass
    server = HTTPServer(('127.0.0.1', 0), App)
    with open(port_path, 'w') as f: f.write(str(server.server_port))
    server.serve_forever()
    """

    static let restScript = """
    import json, sys
    from twilio.rest import Client
    p = json.load(sys.stdin)
    client = Client(p['key'], p['secret'], p['account'])
    client.api.base_url = p['base']
    out = {}
    if p['step'] == 'create':
        app = client.applications.create(friendly_name='Interop voice app', voice_url=p['voice_url'],
                                         status_callback=p['status_url'])
        out['sid'] = app.sid
    elif p['step'] == 'hangup':
        live = client.calls.list(status='in-progress')
        out['live'] = [c.sid for c in live]
        call = client.calls(p['call']).fetch()
        out['before'] = call.status
        out['after'] = client.calls(p['call']).update(status='completed').status
    elif p['step'] == 'fetch':
        call = client.calls(p['call']).fetch()
        out['status'] = call.status
        out['children'] = [c.sid for c in client.calls.list(parent_call_sid=p['call'])]
    print(json.dumps(out))
    """

    @Test func twilioLibraryAndRequestValidatorAgreeWithTheServer() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-voice-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var config = ServerConfiguration()
        config.port = 0
        config.recordingsDirectory = dir.appendingPathComponent("recordings").path
        let server = try PlatformServer(configuration: config, store: InMemoryAccountStore())
        try server.start()
        let credentials = server.defaultCredentials
        let base = "http://127.0.0.1:\(server.port)"

        // The Python TwiML app.
        let log = dir.appendingPathComponent("requests.jsonl"), portFile = dir.appendingPathComponent("port")
        let app = Process()
        app.executableURL = Python.packageRoot.appendingPathComponent(".venv/bin/python3")
        app.arguments = ["-c", Self.appScript, credentials.account.authToken, log.path, portFile.path]
        // Not the test's own stdout/stderr: a child holding them open would keep `swift test` waiting.
        app.standardOutput = FileHandle.nullDevice
        app.standardError = try FileHandle(forWritingTo: {
            let url = dir.appendingPathComponent("app-stderr.txt")
            FileManager.default.createFile(atPath: url.path, contents: nil)
            return url
        }())
        try app.runWithDefaultSignals()
        defer { app.terminate() }
        var appPort = ""
        for _ in 0..<100 where appPort.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            appPort = (try? String(contentsOf: portFile, encoding: .utf8)) ?? ""
        }
        let appURL = "http://127.0.0.1:\(try #require(Int(appPort)))"

        func rest(_ step: String, _ extra: JSONObject = [:]) async throws -> JSONObject {
            var input: JSONObject = ["base": .string(base), "account": .string(credentials.account.sid),
                                     "key": .string(credentials.apiKey.sid), "secret": .string(credentials.apiKey.secret),
                                     "step": .string(step)]
            for key in extra.keys { input[key] = extra[key] }
            return try await PythonProcess.run(Self.restScript, input: .object(input), in: dir).objectValue ?? [:]
        }

        let created = try await rest("create", ["voice_url": .string(appURL + "/voice"), "status_url": .string(appURL + "/status")])
        let appSid = try #require(created["sid"]?.stringValue)

        func token(_ identity: String, application: String?) throws -> String {
            try AccessTokenBuilder.mint(accountSid: credentials.account.sid, apiKeySid: credentials.apiKey.sid,
                                        apiSecret: credentials.apiKey.secret, identity: identity, ttl: 600,
                                        grants: [.voice(VoiceGrant(incomingAllow: true, outgoingApplicationSid: application))],
                                        now: Int64(Date().timeIntervalSince1970))
        }
        let bob = try TestParty(try await SignalingTestClient(baseURL: base, token: token("bob", application: nil)))
        try await bob.signaling.send(.listen)
        _ = try await bob.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }
        let alice = try TestParty(try await SignalingTestClient(baseURL: base, token: token("alice", application: appSid)))
        let callSid = try await alice.invite(to: "bob")
        try await alice.connectMedia()
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await alice.expectConnected()

        let hangup = try await rest("hangup", ["call": .string(callSid)])
        guard case .array(let live)? = hangup["live"] else { throw Python.Failure(description: "no live calls listed") }
        #expect(live.contains(.string(callSid)))
        #expect(hangup["before"]?.stringValue == "in-progress")
        #expect(hangup["after"]?.stringValue == "completed")
        _ = try await alice.expectHangup()
        _ = try await bob.expectHangup()
        let fetched = try await rest("fetch", ["call": .string(callSid)])
        #expect(fetched["status"]?.stringValue == "completed")
        #expect(fetched["children"] == .array([.string(incoming.callSid)]))

        // Every request the server made validated: the Voice URL and the four status callbacks.
        var lines: [JSONObject] = []
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").compactMap { try? JSONValue.parse(Array($0.utf8)).objectValue }
            if lines.filter({ $0["path"]?.stringValue == "/status" }).count >= 4 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(lines.count >= 5)
        #expect(lines.allSatisfy { $0["valid"] == .bool(true) })
        let statuses = lines.filter { $0["path"]?.stringValue == "/status" }
            .compactMap { $0["params"]?.objectValue?["CallStatus"]?.stringValue }
        #expect(statuses == ["initiated", "ringing", "in-progress", "completed"])
        await alice.close()
        await bob.close()
        await server.shutdown()
    }
}
