import Foundation
import ParleyStore
import Testing

/// `credentialsVersion()`: it changes when keys or auth tokens change through the store, and (for
/// SQLite) when another connection to the same file commits, as `parley keys revoke` does from
/// another process; it stays put while nothing changes.
@Suite struct CredentialsVersionTests {
    @Test(arguments: StoreKind.allCases)
    func changesWithKeysAndAuthTokens(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let account = try store.createAccount(friendlyName: "Acme")
        var last = try store.credentialsVersion()
        #expect(try store.credentialsVersion() == last, "reading changes nothing")
        let steps: [(String, () throws -> Void)] = [
            ("create key", { _ = try store.createAPIKey(accountSid: account.sid, friendlyName: "k") }),
            ("revoke key", { try store.revokeAPIKey(sid: try store.apiKeys(accountSid: account.sid)[0].sid) }),
            ("rotate auth token", { _ = try store.rotateAuthToken(accountSid: account.sid) }),
        ]
        for (name, step) in steps {
            try step()
            let now = try store.credentialsVersion()
            #expect(now != last, "\(name)")
            last = now
        }
        // Failed changes need not bump it, and calls or applications are not credentials.
        #expect(throws: StoreError.self) { try store.revokeAPIKey(sid: "SK" + String(repeating: "0", count: 32)) }
        _ = try store.createApplication(ApplicationDraft(friendlyName: "app"), accountSid: account.sid)
        #expect(try store.credentialsVersion() == last)
    }

    @Test func sqliteSeesCommitsOfAnotherConnection() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let server = try SQLiteAccountStore(path: dir.path("parley.db"))
        let defaults = try server.ensureDefaultAccount()
        let before = try server.credentialsVersion()
        // A second connection to the file stands for `parley keys revoke` in another process.
        let cli = try SQLiteAccountStore(path: dir.path("parley.db"))
        try cli.revokeAPIKey(sid: defaults.apiKey.sid)
        let after = try server.credentialsVersion()
        #expect(after != before)
        #expect(after.local == before.local, "the change came from elsewhere")
        #expect(try server.apiKey(sid: defaults.apiKey.sid)?.revoked == true)
        #expect(try server.credentialsVersion() == after)
    }
}
