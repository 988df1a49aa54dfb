/// Whether a database file is Parley's to use, decided before anything is written to it, so a
/// `--db` that names another application's SQLite file is refused instead of gaining our tables.
///
/// Parley's files carry `PRAGMA application_id` = `parleyApplicationID` (SQLite file format
/// §1.3.13, set on every open since it was introduced). A file without one is Parley's when it is
/// empty, or when its `user_version` is a Parley schema version and it holds Parley's first tables.
enum SchemaOwnership {
    /// "PRLY".
    static let parleyApplicationID: Int32 = 0x5052_4C59
    /// The tables migration 1 creates: every Parley schema has them.
    static let markerTables: Set<String> = ["accounts", "api_keys"]

    /// Throws `.notParleyDatabase` unless `db` is empty or Parley's.
    static func check(_ db: SQLiteDatabase) throws(StoreError) {
        let applicationID: Int32
        let version: Int32
        let tables: [String]
        do {
            applicationID = Int32(truncatingIfNeeded: try db.query("PRAGMA application_id").first?.first?.int64 ?? 0)
            version = try db.userVersion
            tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
                .compactMap { $0.first?.string }
        } catch .sqlite(let code, _) where code & 0xFF == sqliteNotADatabase {
            throw .notParleyDatabase(path: db.path, reason: "it is not a SQLite database")
        }
        if applicationID == parleyApplicationID { return }
        if applicationID != 0 {
            throw .notParleyDatabase(path: db.path, reason: "its application_id is \(applicationID), another application's")
        }
        guard !tables.isEmpty else { return }
        if version > 0, markerTables.isSubset(of: tables) { return }
        let listed = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
        throw .notParleyDatabase(path: db.path, reason: "it holds other tables (\(listed)) and no Parley schema")
    }

    /// Marks `db` as Parley's (idempotent).
    static func stamp(_ db: SQLiteDatabase) throws(StoreError) {
        try db.execute("PRAGMA application_id = \(parleyApplicationID)")  // a constant: safe to inline
    }

    /// SQLITE_NOTADB.
    private static let sqliteNotADatabase: Int32 = 26
}
