import AccessToken
import Foundation
import JSONWire
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing
import WebSocketWire

/// The official `twilio` Python library manages API keys on a running server (`client.new_keys
/// .create`, `client.keys.list`, `client.keys(sid).fetch/.delete`), and deleting a key through it
/// ends the signaling session that key's token opened (error 20103, close 4401). Needs the venv.
@Suite(.tags(.interop)) struct TwilioKeysInteropTests {
    @Test(.timeLimit(.minutes(1))) func twilioLibraryManagesKeysAndDeletingOneBites() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-keys-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var config = ServerConfiguration()
        config.port = 0
        config.databasePath = dir.appendingPathComponent("parley.db").path
        let server = try PlatformServer(configuration: config)
        try server.start()
        let account = server.defaultCredentials.account
        let doomed = try server.store.createAPIKey(accountSid: account.sid, friendlyName: "doomed")
        let token = try AccessTokenBuilder.mint(accountSid: account.sid, apiKeySid: doomed.sid, apiSecret: doomed.secret,
                                                identity: "alice", ttl: 600, grants: [.voice(VoiceGrant(incomingAllow: true))],
                                                now: Int64(Date().timeIntervalSince1970))
        let base = "http://127.0.0.1:\(server.port)"
        let client = try await SignalingTestClient(baseURL: base, token: token)

        let input: JSONObject = [
            "base": .string(base), "account": .string(account.sid), "auth_token": .string(account.authToken),
            "key": .string(server.defaultCredentials.apiKey.sid), "secret": .string(server.defaultCredentials.apiKey.secret),
            "doomed": .string(doomed.sid), "doomed_secret": .string(doomed.secret),
        ]
        let result: JSONObject
        do {
            result = try await PythonProcess.run(Self.script, input: .object(input), in: dir).objectValue ?? [:]
        } catch {
            await server.shutdown()
            throw error
        }
        // The deletion bites: the session's client is told and disconnected.
        let error = try await client.expect("error", timeout: .seconds(5)) { if case .error(let e) = $0 { e } else { nil } }
        while try await client.next(timeout: .seconds(5)) != nil {}
        let closeCode = client.webSocket.closeCode?.rawValue
        await server.shutdown()

        #expect(error.code == 20103)
        #expect(closeCode == SignalingCloseCode.unauthorized)
        let created = try #require(result["created"]?.objectValue)
        let newSid = try #require(created["sid"]?.stringValue)
        #expect(SID.isValid(newSid, prefix: "SK"))
        #expect(created["friendly_name"]?.stringValue == "interop")
        #expect(created["secret"]?.stringValue?.count == 32)
        #expect(created["date_created"]?.stringValue != nil)
        #expect(result["listed"] == .array([server.defaultCredentials.apiKey.sid, doomed.sid, newSid].map { .string($0) }))
        #expect(result["fetched_name"] == .string("interop"))
        #expect(result["fetched_secret"] == .null)
        #expect(result["new_key_works"] == .integer(0))
        #expect(result["deleted"] == .bool(true))
        #expect(result["listed_after"] == .array([server.defaultCredentials.apiKey.sid, newSid].map { .string($0) }))
        #expect(result["fetch_deleted"]?.objectValue?["code"] == .integer(20404))
        #expect(result["deleted_key_rest"]?.objectValue?["status"] == .integer(401))
        #expect(result["by_api_key"]?.objectValue?["status"] == .integer(403))
        #expect(result["by_api_key"]?.objectValue?["code"] == .integer(20403))
    }

    static let script = TwilioScriptPrelude.source + """
        main = client(cfg["account"], cfg["auth_token"])
        out = {}
        new = main.new_keys.create(friendly_name="interop")
        out["created"] = {"sid": new.sid, "friendly_name": new.friendly_name, "secret": new.secret,
                          "date_created": new.date_created.isoformat() if new.date_created else None}
        out["listed"] = [k.sid for k in main.keys.list()]
        fetched = main.keys(new.sid).fetch()
        out["fetched_name"] = fetched.friendly_name
        out["fetched_secret"] = getattr(fetched, "secret", None)
        out["new_key_works"] = len(client(new.sid, new.secret).calls.list(limit=5))
        out["deleted"] = main.keys(cfg["doomed"]).delete()
        out["listed_after"] = [k.sid for k in main.keys.list()]
        out["fetch_deleted"] = failure(lambda: main.keys(cfg["doomed"]).fetch())
        out["deleted_key_rest"] = failure(lambda: client(cfg["doomed"], cfg["doomed_secret"]).calls.list(limit=5))
        out["by_api_key"] = failure(lambda: client(cfg["key"], cfg["secret"]).keys.list())
        print(json.dumps(out))
        """
}
