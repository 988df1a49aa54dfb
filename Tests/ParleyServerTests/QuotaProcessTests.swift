import Foundation
import HTTPWire
import ParleyNet
import ParleyTestSupport
import Signaling
import Testing

/// An API key made with `parley keys create` (the first one on a fresh store is the default key).
struct CLIKey {
    let accountSid: String
    let sid: String
    let secret: String

    static func create(db: String, name: String) throws -> CLIKey {
        let created = try Executables.run("parley", ["keys", "create", "--name", name, "--db", db])
        guard created.status == 0 else { throw TestFailure("parley keys create: \(created.stderr)") }
        func field(_ label: String) throws -> String {
            guard let line = created.stdout.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else {
                throw TestFailure("parley keys create printed no \(label)")
            }
            return line.dropFirst(label.count).trimmingCharacters(in: .whitespaces)
        }
        return CLIKey(accountSid: try field("Account SID:"), sid: try field("API key SID:"), secret: try field("API secret:"))
    }

    func token(_ identity: String) throws -> String {
        try voiceToken(accountSid: accountSid, keySid: sid, secret: secret, identity: identity)
    }
}

/// A `parley-server` process on a fresh SQLite store holding the API keys `keyNames` (made with
/// the CLI before the server starts), for `body`; the process and the store are gone afterwards.
func withServerProcess(keyNames: [String], extra: [String] = [],
                       _ body: (_ base: String, _ db: String, _ keys: [CLIKey], _ http: HTTPClient) async throws -> Void)
    async throws {
    var keys: [CLIKey] = []
    let server = try ServerProcess(arguments: extra) { db in keys = try keyNames.map { try CLIKey.create(db: db, name: $0) } }
    defer { server.stop() }
    let http = try HTTPClient()
    defer { http.shutdown() }
    try await body(server.baseURL, server.databasePath, keys, http)
}

/// The hostile-client case of issue 12 against a real `parley-server`: one token opening echo
/// sessions as fast as it can gets its identity's 10 and then 429/31429, while another identity's
/// echo session and a real call (signaling, both legs' DTLS, bridged) still go through; the key's
/// pool (`--max-sessions-per-key`) stops the key's other identities, not other keys.
@Suite(.serialized, .tags(.process)) struct QuotaProcessTests {
    @Test(.timeLimit(.minutes(2))) func oneTokenCannotFillTheMediaServer() async throws {
        // 10 (hog) + 1 (guest) + 2 (the call's legs) + 1 (hog2) = the key's 14.
        try await withServerProcess(keyNames: ["app", "other app"], extra: ["--max-sessions-per-key", "14"]) { base, _, keys, http in
            try await Self.run(base: base, keyA: keys[0], keyB: keys[1], http: http)
        }
    }

    private static func run(base: String, keyA: CLIKey, keyB: CLIKey, http: HTTPClient) async throws {
        // The hog: 2,000 offers with one token, one after another.
        let hog = try keyA.token("hog")
        var created = 0, refused: HTTPResponse?
        var refusals = 0
        let start = ContinuousClock.now
        for _ in 0..<2_000 {
            let response = try await EchoRequests.post(http, base: base, token: hog)
            if response.status == 201 {
                created += 1
            } else {
                #expect(response.status == 429)
                refusals += 1
                if refused == nil { refused = response }
            }
        }
        let elapsed = ContinuousClock.now - start
        print("one token, 2,000 POST /v1/echo: \(created) created, \(refusals) refused with 429 in \(elapsed)")
        #expect(created == 10)
        let first = try #require(refused)
        #expect(EchoRequests.error(first).code == 31429)
        #expect(EchoRequests.error(first).reason?.contains("--max-sessions-per-identity") == true)
        #expect(first.headers["Retry-After"] == "30")

        // Another identity of the same key still gets an echo session…
        let guest = try await EchoRequests.post(http, base: base, token: keyA.token("guest"))
        #expect(guest.status == 201, "\(guest.bodyText)")

        // …and a call between two more identities connects both legs.
        let bob = try TestParty(try await SignalingTestClient(baseURL: base, token: keyA.token("bob")))
        try await bob.signaling.send(.listen, id: "l1")
        _ = try await bob.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }
        let carol = try TestParty(try await SignalingTestClient(baseURL: base, token: keyA.token("carol")))
        let callSid = try await carol.invite(to: "bob")
        #expect(callSid.hasPrefix("CA"), "\(callSid)")
        try await carol.connectMedia()
        let incoming = try await bob.expectIncoming()
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()
        try await carol.expectConnected()

        // The key's pool: one more for hog2, then 429 naming the per-key limit; another key is unaffected.
        let hog2 = try keyA.token("hog2")
        #expect(try await EchoRequests.post(http, base: base, token: hog2).status == 201)
        let keyFull = try await EchoRequests.post(http, base: base, token: hog2)
        #expect(keyFull.status == 429)
        #expect(EchoRequests.error(keyFull).reason?.contains("--max-sessions-per-key") == true, "\(keyFull.bodyText)")
        let other = try await EchoRequests.post(http, base: base, token: keyB.token("visitor"))
        #expect(other.status == 201, "another key: \(other.bodyText)")

        try await carol.signaling.send(.hangup(Hangup(callSid: callSid)))
        _ = try await bob.expectHangup()
        await carol.close()
        await bob.close()
    }
}
