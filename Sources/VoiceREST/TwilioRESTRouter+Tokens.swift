import Foundation
import HTTPWire
import ICE
import JSONWire
import ParleyStore
import PlatformCore

/// `Tokens.json`: Twilio's Network Traversal Service (what `client.tokens.create(ttl=…)` calls):
/// POST answers 201 with the server's STUN and TURN servers (`ice_servers`, each URL its own
/// entry with `url` and `urls`, TURN ones with `username` and `credential`), the TURN
/// `username` and `password` (TURN REST credentials for the account, from coturn's shared
/// secret), and `ttl` (the `Ttl` parameter, 1–86400 seconds, default the server's `--turn-ttl`).
/// A server without `--ice-server` answers an empty `ice_servers`.
extension TwilioRESTRouter {
    func createToken(_ context: Context) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "POST")
        var ttl = iceServers?.ttl ?? 86_400
        if let text = context.parameters["Ttl"] {
            guard let n = Int(text), (1...86_400).contains(n) else { throw .invalidParameter("Ttl must be 1–86400 seconds") }
            ttl = n
        }
        let now = Int64(Date().timeIntervalSince1970)
        let entries = iceServers?.entries(user: context.account.sid, now: UInt64(now), ttl: ttl) ?? []
        var servers: [JSONValue] = []
        for entry in entries {
            for url in entry.urls {
                var server: JSONObject = ["url": .string(url), "urls": .string(url)]
                if let username = entry.username { server["username"] = .string(username) }
                if let credential = entry.credential { server["credential"] = .string(credential) }
                servers.append(.object(server))
            }
        }
        let turn = entries.first { $0.username != nil }
        let body: JSONObject = [
            "account_sid": .string(context.account.sid),
            "date_created": .string(RESTTime.rfc2822(now)),
            "date_updated": .string(RESTTime.rfc2822(now)),
            "ice_servers": .array(servers),
            "username": turn?.username.map(JSONValue.string) ?? .null,
            "password": turn?.credential.map(JSONValue.string) ?? .null,
            "ttl": .string(String(ttl)),
        ]
        return Self.json(.object(body), status: 201)
    }
}
