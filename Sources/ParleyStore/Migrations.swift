/// Schema migrations, applied in order; `PRAGMA user_version` records how many have run.
enum Migrations {
    /// Each entry upgrades the schema from version `index` to `index + 1`.
    static let steps: [String] = [
        // 0 → 1: accounts and API keys.
        """
        CREATE TABLE accounts (
            sid TEXT PRIMARY KEY,
            friendly_name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            is_default INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE api_keys (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            friendly_name TEXT NOT NULL,
            secret TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            revoked INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX api_keys_by_account ON api_keys(account_sid);
        """,
    ]

    /// The version this build writes.
    static var latest: Int32 { Int32(steps.count) }

    /// Brings `db` up to `latest`, each step in its own transaction. Refuses a newer schema.
    static func migrate(_ db: SQLiteDatabase) throws(StoreError) {
        let current = try db.userVersion
        guard current <= latest else { throw .schemaTooNew(found: current, supported: latest) }
        for version in Int(current)..<steps.count {
            try db.transaction { (db) throws(StoreError) in
                try db.executeScript(steps[version])
                try db.setUserVersion(Int32(version + 1))
            }
        }
    }
}
