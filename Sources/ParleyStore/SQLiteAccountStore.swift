import Foundation
import Synchronization

/// An `AccountStore` and `VoiceStore` in a SQLite file (created mode 0600; WAL journal). A row is on
/// disk when the call that wrote it returns (each write is its own transaction), so `kill -9` loses
/// nothing that was acknowledged. Voice tables live in the `SQLiteAccountStore+…` extensions.
public final class SQLiteAccountStore: AccountStore {
    /// The one connection, serialised by the mutex.
    let db: Mutex<SQLiteDatabase>
    /// The clock for `createdAt`/`updatedAt` stamps (seconds since the epoch).
    let now: @Sendable () -> Int64
    /// Keys created or revoked and auth tokens rotated through this object (`credentialsVersion()`).
    let credentialWrites = Atomic<Int64>(0)

    /// Opens or creates the database at `path` and migrates it to the current schema.
    /// - Throws: `StoreError.notParleyDatabase` for a file that has tables of its own and no Parley
    ///   schema (another application's database), without changing it.
    public init(path: String, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) })
        throws(StoreError) {
        let database = try SQLiteDatabase(opening: path)
        try SchemaOwnership.check(database)
        try database.secureAndJournal()
        try Migrations.migrate(database)
        try SchemaOwnership.stamp(database)
        db = Mutex(database)
        self.now = now
    }

    /// The schema version this build writes (the number of migrations).
    public static var latestSchemaVersion: Int32 { Migrations.latest }

    /// The schema version of the open database.
    public var schemaVersion: Int32 {
        get throws(StoreError) { try db.withLock { (d) throws(StoreError) -> Int32 in try d.userVersion } }
    }

    public func createAccount(friendlyName: String) throws(StoreError) -> Account {
        let account = Account(sid: SID.make("AC"), friendlyName: friendlyName, createdAt: now(),
                              authToken: SID.makeAuthToken(), authID: SID.makeAuthID())
        try db.withLock { (d) throws(StoreError) in try Self.insert(account, isDefault: false, into: d) }
        return account
    }

    public func account(sid: String) throws(StoreError) -> Account? {
        try db.withLock { (d) throws(StoreError) -> Account? in
            try d.query("\(Self.accountColumns) WHERE sid = ?1", [.text(sid)]).first.map(Self.account(row:))
        }
    }

    public func account(authID: String) throws(StoreError) -> Account? {
        try db.withLock { (d) throws(StoreError) -> Account? in
            try d.query("\(Self.accountColumns) WHERE auth_id = ?1", [.text(authID)]).first.map(Self.account(row:))
        }
    }

    public func accounts() throws(StoreError) -> [Account] {
        try db.withLock { (d) throws(StoreError) -> [Account] in
            try d.query("\(Self.accountColumns) ORDER BY created_at, rowid")
                .map(Self.account(row:))
        }
    }

    public func createAPIKey(accountSid: String, friendlyName: String) throws(StoreError) -> APIKey {
        let time = now()
        let key = try db.withLock { (d) throws(StoreError) -> APIKey in
            try d.transaction { (d) throws(StoreError) -> APIKey in
                try Self.createKey(in: d, accountSid: accountSid, friendlyName: friendlyName, at: time)
            }
        }
        credentialWrites.add(1, ordering: .releasing)
        return key
    }

    public func apiKey(sid: String) throws(StoreError) -> APIKey? {
        try db.withLock { (d) throws(StoreError) -> APIKey? in
            try d.query("\(Self.keyColumns) WHERE sid = ?1", [.text(sid)]).first.map(Self.key(row:))
        }
    }

    public func apiKeys(accountSid: String?) throws(StoreError) -> [APIKey] {
        try db.withLock { (d) throws(StoreError) -> [APIKey] in
            let rows = if let accountSid {
                try d.query("\(Self.keyColumns) WHERE account_sid = ?1 ORDER BY created_at, rowid", [.text(accountSid)])
            } else {
                try d.query("\(Self.keyColumns) ORDER BY created_at, rowid")
            }
            return rows.map(Self.key(row:))
        }
    }

    public func revokeAPIKey(sid: String) throws(StoreError) {
        try db.withLock { (d) throws(StoreError) in
            try d.execute("UPDATE api_keys SET revoked = 1 WHERE sid = ?1", [.text(sid)])
            guard d.changes == 1 else { throw .notFound("API key \(sid)") }
        }
        credentialWrites.add(1, ordering: .releasing)
    }

    public func ensureDefaultAccount() throws(StoreError) -> DefaultCredentials {
        let time = now()
        return try db.withLock { (d) throws(StoreError) -> DefaultCredentials in
            try d.transaction { (d) throws(StoreError) -> DefaultCredentials in
                var created = false
                let account: Account
                if let row = try d.query("\(Self.accountColumns) WHERE is_default = 1 LIMIT 1").first {
                    account = Self.account(row: row)
                } else {
                    account = Account(sid: SID.make("AC"), friendlyName: defaultAccountName, createdAt: time,
                                      authToken: SID.makeAuthToken(), authID: SID.makeAuthID())
                    try Self.insert(account, isDefault: true, into: d)
                    created = true
                }
                let active = try d.query("\(Self.keyColumns) WHERE account_sid = ?1 AND revoked = 0 ORDER BY created_at, rowid LIMIT 1",
                                         [.text(account.sid)])
                if let row = active.first {
                    return DefaultCredentials(account: account, apiKey: Self.key(row: row), created: created)
                }
                let key = try Self.createKey(in: d, accountSid: account.sid, friendlyName: defaultKeyName, at: time)
                return DefaultCredentials(account: account, apiKey: key, created: true)
            }
        }
    }

    public func rotateAuthToken(accountSid: String) throws(StoreError) -> Account {
        let token = SID.makeAuthToken()
        defer { credentialWrites.add(1, ordering: .releasing) }
        return try db.withLock { (d) throws(StoreError) -> Account in
            try d.execute("UPDATE accounts SET auth_token = ?2 WHERE sid = ?1", [.text(accountSid), .text(token)])
            guard d.changes == 1,
                  let row = try d.query("\(Self.accountColumns) WHERE sid = ?1", [.text(accountSid)]).first else {
                throw .notFound("account \(accountSid)")
            }
            return Self.account(row: row)
        }
    }

    public func credentialsVersion() throws(StoreError) -> CredentialsVersion {
        let local = credentialWrites.load(ordering: .acquiring)
        let external = try db.withLock { (d) throws(StoreError) -> Int64 in
            try d.query("PRAGMA data_version").first?.first?.int64 ?? 0
        }
        return CredentialsVersion(external: external, local: local)
    }

    // MARK: Rows

    private static let accountColumns = "SELECT sid, friendly_name, created_at, auth_token, auth_id FROM accounts"
    private static let keyColumns = "SELECT sid, account_sid, friendly_name, secret, created_at, revoked FROM api_keys"

    private static func insert(_ account: Account, isDefault: Bool, into d: SQLiteDatabase) throws(StoreError) {
        try d.execute("INSERT INTO accounts (sid, friendly_name, created_at, is_default, auth_token, auth_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                      [.text(account.sid), .text(account.friendlyName), .integer(account.createdAt),
                       .integer(isDefault ? 1 : 0), .text(account.authToken), .text(account.authID)])
    }

    private static func createKey(in d: SQLiteDatabase, accountSid: String, friendlyName: String,
                                  at time: Int64) throws(StoreError) -> APIKey {
        guard try d.query("SELECT 1 FROM accounts WHERE sid = ?1", [.text(accountSid)]).first != nil else {
            throw .notFound("account \(accountSid)")
        }
        let key = APIKey(sid: SID.make("SK"), accountSid: accountSid, friendlyName: friendlyName,
                         secret: SID.makeSecret(), createdAt: time, revoked: false)
        try d.execute("INSERT INTO api_keys (sid, account_sid, friendly_name, secret, created_at, revoked) VALUES (?1, ?2, ?3, ?4, ?5, 0)",
                      [.text(key.sid), .text(key.accountSid), .text(key.friendlyName), .text(key.secret), .integer(time)])
        return key
    }

    private static func account(row: [SQLValue]) -> Account {
        Account(sid: row[0].string ?? "", friendlyName: row[1].string ?? "", createdAt: row[2].int64 ?? 0,
                authToken: row[3].string ?? "", authID: row[4].string ?? "")
    }

    private static func key(row: [SQLValue]) -> APIKey {
        APIKey(sid: row[0].string ?? "", accountSid: row[1].string ?? "", friendlyName: row[2].string ?? "",
               secret: row[3].string ?? "", createdAt: row[4].int64 ?? 0, revoked: (row[5].int64 ?? 0) != 0)
    }
}
