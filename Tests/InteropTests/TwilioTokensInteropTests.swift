import Foundation
import JSONWire
import ParleyCrypto
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// The official `twilio` Python library's `client.tokens.create(ttl=…)` (Network Traversal
/// Service) against a server with `--ice-server` URLs and a TURN shared secret: it gets the STUN
/// and TURN servers and TURN REST credentials coturn's `use-auth-secret` accepts. Needs the venv.
@Suite(.tags(.interop)) struct TwilioTokensInteropTests {
    static let secret = "tokens-interop-secret"

    @Test(.timeLimit(.minutes(1))) func twilioLibraryCreatesANetworkTraversalToken() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-tokens-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var config = ServerConfiguration()
        config.port = 0
        config.mediaPort = 0
        config.recordingsDirectory = dir.appendingPathComponent("recordings").path
        config.iceServerURLs = ["stun:turn.example.com:3478", "turn:turn.example.com:3478?transport=udp"]
        config.turnSecret = Self.secret
        let server = try PlatformServer(configuration: config, store: InMemoryAccountStore())
        try server.start()
        let account = server.defaultCredentials.account
        let input: JSONObject = ["base": .string("http://127.0.0.1:\(server.port)"), "account": .string(account.sid),
                                 "auth_token": .string(account.authToken),
                                 "key": .string(server.defaultCredentials.apiKey.sid), "secret": .string(server.defaultCredentials.apiKey.secret)]
        let result: JSONObject
        do {
            result = try await PythonProcess.run(Self.script, input: .object(input), in: dir).objectValue ?? [:]
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()

        for key in ["by_auth_token", "by_api_key"] {
            let token = try #require(result[key]?.objectValue, "\(key): \(result)")
            #expect(token["account_sid"]?.stringValue == account.sid && token["ttl"]?.stringValue == "3600", "\(token)")
            guard case .array(let list)? = token["ice_servers"] else { throw ChromiumRun.Failure(description: "no ice_servers: \(token)") }
            let servers = list.compactMap(\.objectValue)
            #expect(servers.map { $0["urls"]?.stringValue } == config.iceServerURLs, "\(servers)")
            let username = token["username"]?.stringValue ?? ""
            let expiry = Int64(username.split(separator: ":").first ?? "") ?? 0
            let now = Int64(Date().timeIntervalSince1970)
            #expect(username.hasSuffix(":" + account.sid) && expiry > now && expiry <= now + 3600, "username \(username)")
            let expected = Data(HMAC.sha1(key: Array(Self.secret.utf8), message: Array(username.utf8))).base64EncodedString()
            #expect(token["password"]?.stringValue == expected && servers.last?["credential"]?.stringValue == expected)
            #expect(token["date_created"]?.stringValue != nil)
        }
        #expect(result["bad_ttl"]?.objectValue?["status"] == .integer(400))
    }

    static let script = TwilioScriptPrelude.source + """
        def shown(t):
            return {"account_sid": t.account_sid, "ttl": t.ttl, "username": t.username, "password": t.password,
                    "ice_servers": t.ice_servers, "date_created": t.date_created.isoformat() if t.date_created else None}
        out = {"by_auth_token": shown(client(cfg["account"], cfg["auth_token"]).tokens.create(ttl=3600)),
               "by_api_key": shown(client(cfg["key"], cfg["secret"]).tokens.create(ttl=3600)),
               "bad_ttl": failure(lambda: client(cfg["account"], cfg["auth_token"]).tokens.create(ttl=0))}
        print(json.dumps(out))
        """
}
