import CSQLite
import Foundation

/// A value bound to or read from SQLite.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    public var string: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    public var int64: Int64? {
        if case .integer(let n) = self { return n }
        return nil
    }
}

/// A thin wrapper over one `sqlite3` connection. Not thread-safe: owners serialise access
/// (`SQLiteAccountStore` keeps it behind a `Mutex`).
public final class SQLiteDatabase {
    let handle: OpaquePointer
    /// The path given to `init`.
    public let path: String
    /// Prepared statements by SQL text, reused (reset, bindings cleared) instead of compiled for
    /// every call; at most `statementCacheLimit`, the whole cache dropped when it fills (the
    /// store's statements are a fixed set, so it refills with the ones in use).
    private var statements: [String: SQLiteStatement] = [:]
    static let statementCacheLimit = 128

    /// Opens (creating if needed) the database at `path`, or an in-memory one for `":memory:"`.
    ///
    /// A new file is created with open(2) mode 0600 before SQLite writes anything, and an existing one
    /// is narrowed to 0600, because the database holds API key secrets. SQLite gives its `-wal` and
    /// `-shm` files the database file's mode. Enables WAL (on files), foreign keys and a busy timeout.
    /// `init(opening:)` followed by `secureAndJournal()`.
    public convenience init(path: String, busyTimeoutMilliseconds: Int32 = 5000) throws(StoreError) {
        try self.init(opening: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try secureAndJournal()
    }

    /// Opens (creating if needed, mode 0600) the database at `path` without changing an existing
    /// file: no mode narrowing, no journal mode switch, so a store can look at a file before it
    /// decides the file is its own. `secureAndJournal()` does the rest.
    public init(opening path: String, busyTimeoutMilliseconds: Int32 = 5000) throws(StoreError) {
        self.path = path
        if path != ":memory:" {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
            close(fd)
        }
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw .sqlite(code: rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        try execute("PRAGMA foreign_keys = ON")
    }

    /// Narrows the file to 0600 (it holds API key secrets) and switches it to WAL.
    public func secureAndJournal() throws(StoreError) {
        guard path != ":memory:" else { return }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & 0o077 != 0 { _ = chmod(path, 0o600) }
        _ = try query("PRAGMA journal_mode = WAL")
        // In WAL mode NORMAL syncs at checkpoints, not at every commit: a crash of the process
        // loses nothing and the file cannot be corrupted; a power loss may undo the last commits
        // (SQLite's documentation, "WAL mode": synchronous=NORMAL). FULL made each commit an
        // fsync, the whole cost of a SIP registration.
        try execute("PRAGMA synchronous = NORMAL")
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one statement that returns no rows.
    public func execute(_ sql: String, _ bindings: [SQLValue] = []) throws(StoreError) {
        _ = try query(sql, bindings)
    }

    /// Runs one statement and returns all its rows.
    public func query(_ sql: String, _ bindings: [SQLValue] = []) throws(StoreError) -> [[SQLValue]] {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        var rows: [[SQLValue]] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    private func prepared(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try SQLiteStatement(db: self, sql: sql)
        if statements.count >= Self.statementCacheLimit { statements.removeAll() }
        statements[sql] = statement
        return statement
    }

    /// Runs several `;`-separated statements with no bindings (schema scripts).
    public func executeScript(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(message)
            throw .sqlite(code: rc, message: text)
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    public func transaction<T>(_ body: (SQLiteDatabase) throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body(self)
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `PRAGMA user_version`: the schema version.
    public var userVersion: Int32 {
        get throws(StoreError) { Int32(truncatingIfNeeded: try query("PRAGMA user_version").first?.first?.int64 ?? 0) }
    }

    /// Sets `PRAGMA user_version`.
    public func setUserVersion(_ version: Int32) throws(StoreError) {
        try execute("PRAGMA user_version = \(version)")  // PRAGMA takes no bindings; an Int32 is safe to inline
    }

    /// Rows changed by the last statement.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func error(_ rc: Int32) -> StoreError { .sqlite(code: rc, message: lastErrorMessage) }
}
