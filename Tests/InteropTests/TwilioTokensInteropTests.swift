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
        let urls = ["stun:turn.example.com:3478", "turn:turn.example.com:3478?transport=udp"]
        let platform = try InteropPlatform(name: "tokens-interop") {
            $0.iceServerURLs = urls
            $0.turnSecret = Self.secret
        }
        let account = platform.server.defaultCredentials.account
        let key = platform.server.defaultCredentials.apiKey
        let input: JSONObject = ["base": .string(platform.base), "account": .string(account.sid), "auth_token": .string(account.authToken),
                                 "key": .string(key.sid), "secret": .string(key.secret)]
        let result: JSONObject
        do {
            result = try await PythonProcess.run(Self.script, input: .object(input), in: platform.dir).objectValue ?? [:]
        } catch {
            await platform.stop()
            throw error
        }
        await platform.stop()

        for key in ["by_auth_token", "by_api_key"] {
            let token = try #require(result[key]?.objectValue, "\(key): \(result)")
            #expect(token["account_sid"]?.stringValue == account.sid && token["ttl"]?.stringValue == "3600", "\(token)")
            guard case .array(let list)? = token["ice_servers"] else { throw ChromiumRun.Failure(description: "no ice_servers: \(token)") }
            let servers = list.compactMap(\.objectValue)
            #expect(servers.map { $0["urls"]?.stringValue } == urls, "\(servers)")
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
