import AccessToken
import Foundation
import HTTPWire
import JSONWire
import ParleyNet
import ParleyServer
import ParleyStore

/// An in-process `PlatformServer` on an ephemeral loopback port with an in-memory store.
struct RunningServer {
    let server: PlatformServer
    let client: HTTPClient
    var base: String { "http://127.0.0.1:\(server.port)" }

    static func start(configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> RunningServer {
        var config = ServerConfiguration()
        config.port = 0
        config.recordingsDirectory = NSTemporaryDirectory() + "parley-recordings-\(getpid())"
        configure(&config)
        let server = try PlatformServer(configuration: config, store: InMemoryAccountStore())
        try server.start()
        return RunningServer(server: server, client: try HTTPClient())
    }

    func stop() async {
        client.shutdown()
        await server.shutdown()
    }

    /// A token signed with the server's default key.
    func token(identity: String = "alice", ttl: Int64 = 3600, now: Int64 = Int64(Date().timeIntervalSince1970),
               grants: [AccessTokenGrant] = [.voice(VoiceGrant(incomingAllow: true))]) throws -> String {
        let creds = server.defaultCredentials
        return try AccessTokenBuilder.mint(accountSid: creds.account.sid, apiKeySid: creds.apiKey.sid,
                                           apiSecret: creds.apiKey.secret, identity: identity, ttl: ttl,
                                           grants: grants, now: now)
    }

    /// A token signed with the server's default key whose claims `edit` changed after minting.
    func forged(_ edit: (inout JSONObject) -> Void) throws -> String {
        let parsed = try JWT.parse(try token())
        var claims = parsed.claims
        edit(&claims)
        return JWS.signHS256(header: parsed.header.json, claims: claims,
                             key: Array(server.defaultCredentials.apiKey.secret.utf8))
    }

    func get(_ path: String, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(method: "GET", target: path, headers: headers), to: base + path)
    }

    func me(token: String) async throws -> HTTPResponse {
        try await get("/v1/me", headers: ["Authorization": "Bearer \(token)"])
    }
}

/// The `code` member of a JSON error body.
func errorCode(_ response: HTTPResponse) -> Int? {
    guard let json = try? JSONValue.parse(response.body, maxDepth: 4).objectValue else { return nil }
    if case .integer(let n)? = json["code"] { return Int(n) }
    return nil
}

/// The package root, found from this file.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
