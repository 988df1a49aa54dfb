import Foundation
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport

/// The Python the `twilio` library scripts start with: `cfg` from stdin, `client(user, password)`
/// pointed at `cfg["base"]` (the only change an existing backend needs), and `failure(fn)`, which
/// runs `fn` and returns the vendor error it raised as `{"status", "code"}` (`{"status": 0}` if none).
enum TwilioScriptPrelude {
    static let source = """
        import json, sys
        from twilio.rest import Client
        from twilio.base.exceptions import TwilioException, TwilioRestException

        cfg = json.load(sys.stdin)
        def client(user, password):
            if cfg.get("cafile"):   # an https server with the test's own certificate (requests reads it per request)
                import os
                os.environ["REQUESTS_CA_BUNDLE"] = cfg["cafile"]
            c = Client(user, password, cfg["account"])
            c.api.base_url = cfg["base"]
            return c
        def failure(fn):
            try:
                fn()
                return {"status": 0}
            except TwilioRestException as e:
                return {"status": e.status, "code": e.code}
            except TwilioException as e:   # list(): "Unable to fetch page" with the response
                response = e.args[1]
                return {"status": response.status_code, "code": json.loads(response.text).get("code")}

        """
}

/// An in-process platform for the library tests: a temporary directory (recordings under it), a
/// `PlatformServer` on free loopback ports over an in-memory store, and a TwiML test app.
struct InteropPlatform {
    let dir: URL
    let store: InMemoryAccountStore
    let server: PlatformServer
    let app: TwiMLTestApp

    /// `configure` changes the server's configuration before it starts.
    init(name: String, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var config = ServerConfiguration()
        config.port = 0
        config.mediaPort = 0
        config.recordingsDirectory = dir.appendingPathComponent("recordings").path
        configure(&config)
        store = InMemoryAccountStore()
        server = try PlatformServer(configuration: config, store: store)
        try server.start()
        app = try TwiMLTestApp(authToken: server.defaultCredentials.account.authToken)
    }

    var base: String { "http://127.0.0.1:\(server.port)" }

    /// What the `twilio` library's `RequestValidator` says of each callback's `X-Twilio-Signature`
    /// (signed with the default account's auth token).
    func validateSignatures(_ requests: [TwiMLTestApp.Request]) async throws -> [Bool] {
        let signed: [JSONValue] = requests.map { request in
            var params = JSONObject()
            for (name, value) in request.parameters.sorted(by: { $0.key < $1.key }) { params[name] = .string(value) }
            return .object(["url": .string(request.url), "params": .object(params), "signature": .string(request.signature)])
        }
        let verdicts = try await PythonProcess.run(Self.validator, input: .object([
            "token": .string(server.defaultCredentials.account.authToken), "requests": .array(signed)]), in: dir)
        guard case .array(let items) = verdicts else { return [] }
        return items.map { $0 == .bool(true) }
    }

    static let validator = """
        import json, sys
        from twilio.request_validator import RequestValidator
        cfg = json.load(sys.stdin)
        v = RequestValidator(cfg["token"])
        print(json.dumps([v.validate(r["url"], r["params"], r["signature"]) for r in cfg["requests"]]))
        """

    func stop() async {
        await app.shutdown()
        await server.shutdown()
        try? FileManager.default.removeItem(at: dir)
    }
}
