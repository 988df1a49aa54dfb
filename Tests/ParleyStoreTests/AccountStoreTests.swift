import Foundation
import ParleyStore
import Testing

/// Behaviour every `AccountStore` shares: run against SQLite and the in-memory twin.
@Suite struct AccountStoreTests {
    @Test(arguments: StoreKind.allCases)
    func createAndLookUpAccounts(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let a = try store.createAccount(friendlyName: "Acme")
        let b = try store.createAccount(friendlyName: "Globex")
        #expect(SID.isValid(a.sid, prefix: "AC") && SID.isValid(b.sid, prefix: "AC"))
        #expect(a.sid != b.sid)
        #expect(try store.account(sid: a.sid) == a)
        #expect(try store.account(sid: "AC" + String(repeating: "0", count: 32)) == nil)
        #expect(try store.accounts() == [a, b])
    }

    @Test(arguments: StoreKind.allCases)
    func createListAndRevokeKeys(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let account = try store.createAccount(friendlyName: "Acme")
        let other = try store.createAccount(friendlyName: "Globex")
        let k1 = try store.createAPIKey(accountSid: account.sid, friendlyName: "laptop")
        let k2 = try store.createAPIKey(accountSid: account.sid, friendlyName: "server")
        let k3 = try store.createAPIKey(accountSid: other.sid, friendlyName: "other")
        #expect(SID.isValid(k1.sid, prefix: "SK"))
        #expect(k1.secret.count == 32 && k1.secret != k2.secret)
        #expect(!k1.revoked && k1.accountSid == account.sid && k1.friendlyName == "laptop")
        #expect(try store.apiKey(sid: k1.sid) == k1)
        #expect(try store.apiKeys(accountSid: account.sid) == [k1, k2])
        #expect(try store.apiKeys(accountSid: nil) == [k1, k2, k3])

        try store.revokeAPIKey(sid: k1.sid)
        try store.revokeAPIKey(sid: k1.sid)  // idempotent
        #expect(try store.apiKey(sid: k1.sid)?.revoked == true)
        #expect(try store.activeAPIKey(sid: k1.sid) == nil)
        #expect(try store.activeAPIKey(sid: k2.sid) == k2)
        #expect(try store.firstActiveAPIKey() == k2)
        #expect(throws: StoreError.notFound("API key SKnope")) { try store.revokeAPIKey(sid: "SKnope") }
    }

    @Test(arguments: StoreKind.allCases)
    func keyForUnknownAccountFails(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        #expect(throws: StoreError.self) { try store.createAPIKey(accountSid: "ACmissing", friendlyName: "x") }
    }

    @Test(arguments: StoreKind.allCases)
    func ensureDefaultAccountIsStable(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let first = try store.ensureDefaultAccount()
        #expect(first.created)
        #expect(SID.isValid(first.account.sid, prefix: "AC") && SID.isValid(first.apiKey.sid, prefix: "SK"))
        #expect(first.apiKey.accountSid == first.account.sid && !first.apiKey.secret.isEmpty)
        let second = try store.ensureDefaultAccount()
        #expect(!second.created)
        #expect(second.account == first.account && second.apiKey == first.apiKey)

        try store.revokeAPIKey(sid: first.apiKey.sid)
        let third = try store.ensureDefaultAccount()
        #expect(third.created && third.account == first.account && third.apiKey.sid != first.apiKey.sid)
        #expect(try store.accounts().count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func accountsHaveAuthTokens(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let a = try store.createAccount(friendlyName: "Acme")
        let b = try store.ensureDefaultAccount().account
        for account in [a, b] {
            #expect(account.authToken.count == 32 && account.authToken.allSatisfy(\.isHexDigit))
            #expect(account.authToken == account.authToken.lowercased())
        }
        #expect(a.authToken != b.authToken)
        #expect(try store.account(sid: a.sid)?.authToken == a.authToken)

        let rotated = try store.rotateAuthToken(accountSid: a.sid)
        #expect(rotated.sid == a.sid && rotated.friendlyName == a.friendlyName && rotated.createdAt == a.createdAt)
        #expect(rotated.authToken != a.authToken && rotated.authToken.count == 32)
        #expect(try store.account(sid: a.sid) == rotated)
        #expect(try store.account(sid: b.sid)?.authToken == b.authToken)
        #expect(throws: StoreError.notFound("account ACnope")) { try store.rotateAuthToken(accountSid: "ACnope") }
    }

    @Test func accountDescriptionHidesAuthToken() throws {
        let account = try InMemoryAccountStore().createAccount(friendlyName: "Acme")
        #expect(!"\(account)".contains(account.authToken))
        #expect("\(account)".contains(account.sid))
    }

    @Test func keyDescriptionHidesSecret() throws {
        let store = InMemoryAccountStore()
        let key = try store.ensureDefaultAccount().apiKey
        #expect(!"\(key)".contains(key.secret))
        #expect("\(key)".contains(key.sid))
    }
}

/// SQLite specifics: persistence, file mode, migrations.
@Suite struct SQLiteAccountStoreTests {
    @Test func databaseFilesAreOwnerOnly() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let store = try SQLiteAccountStore(path: path)
        _ = try store.ensureDefaultAccount()
        #expect(try filePermissions(path) == 0o600)
        // WAL mode keeps -wal and -shm files while the store is open; SQLite copies the database's mode.
        for suffix in ["-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: path + suffix))
            #expect(try filePermissions(path + suffix) == 0o600)
        }
        _ = store
    }

    @Test func existingLooseFileIsNarrowed() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("loose.db")
        FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644])
        _ = try SQLiteAccountStore(path: path)
        #expect(try filePermissions(path) == 0o600)
    }

    @Test func dataSurvivesReopen() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let created = try SQLiteAccountStore(path: path).ensureDefaultAccount()
        let reopened = try SQLiteAccountStore(path: path)
        let again = try reopened.ensureDefaultAccount()
        #expect(!again.created && again == DefaultCredentials(account: created.account, apiKey: created.apiKey, created: false))
    }

    @Test func migratesFreshDatabaseToLatest() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let raw = try SQLiteDatabase(path: path)
        #expect(try raw.userVersion == 0)
        let store = try SQLiteAccountStore(path: path)
        #expect(try store.schemaVersion == SQLiteAccountStore.latestSchemaVersion)
        #expect(try raw.userVersion == SQLiteAccountStore.latestSchemaVersion)
        let tables = try raw.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0.first?.string }
        #expect(tables == ["accounts", "api_keys", "applications", "calls", "compositions", "insights_events", "participants", "phone_numbers",
                          "published_tracks", "push_bindings", "recording_rules", "recordings", "room_recordings", "rooms",
                          "server_liveness", "sip_bindings", "sip_credentials", "sip_domain_mappings", "sip_domains", "sip_endpoints",
                          "sip_ip_addresses", "sip_lists", "subscribe_rules"])
    }

    @Test func refusesNewerSchema() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        try SQLiteDatabase(path: path).setUserVersion(99)
        #expect(throws: StoreError.schemaTooNew(found: 99, supported: SQLiteAccountStore.latestSchemaVersion)) { try SQLiteAccountStore(path: path) }
    }

    @Test func transactionRollsBack() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER)")
        #expect(throws: StoreError.self) {
            try db.transaction { (d) throws(StoreError) in
                try d.execute("INSERT INTO t VALUES (?1)", [.integer(1)])
                throw StoreError.invalidArgument("boom")
            }
        }
        #expect(try db.query("SELECT count(*) FROM t") == [[.integer(0)]])
    }

    @Test func bindsAndReadsEveryType() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t (a, b, c, d)")
        try db.execute("INSERT INTO t VALUES (?1, ?2, ?3, ?4)", [.null, .integer(-7), .text("héllo 'x'"), .blob([0, 1, 255])])
        #expect(try db.query("SELECT a, b, c, d FROM t") == [[.null, .integer(-7), .text("héllo 'x'"), .blob([0, 1, 255])]])
    }

    @Test func unopenablePathFails() {
        #expect(throws: StoreError.self) { try SQLiteAccountStore(path: "/nonexistent-dir/x/parley.db") }
    }
}
