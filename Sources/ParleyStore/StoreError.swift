/// Errors from Parley's stores. Messages never contain secrets.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite returned `code` (a primary or extended result code).
    case sqlite(code: Int32, message: String)
    /// The database file could not be created or opened; `errno` from open(2).
    case cannotOpen(path: String, errno: Int32)
    /// The database was written by a newer Parley (`PRAGMA user_version` above what we know).
    case schemaTooNew(found: Int32, supported: Int32)
    /// The file at `path` is not a Parley store (another application's SQLite database, or not
    /// SQLite at all); nothing was written to it.
    case notParleyDatabase(path: String, reason: String)
    /// No such record.
    case notFound(String)
    /// An argument was rejected (e.g. a malformed SID).
    case invalidArgument(String)
    /// A record with the same key already exists (e.g. inserting a call whose SID is taken).
    case conflict(String)
    /// The owner already holds as many records of this kind as it may (e.g. SIP endpoints per account).
    case limitReached(String)

    public var description: String {
        switch self {
        case .sqlite(let code, let message): return "SQLite error \(code): \(message)"
        case .cannotOpen(let path, let errno): return "cannot open \(path) (errno \(errno))"
        case .schemaTooNew(let found, let supported):
            return "database schema version \(found) is newer than this build supports (\(supported))"
        case .notParleyDatabase(let path, let reason):
            return "\(path) is not a Parley database: \(reason); point --db at a new file or an existing Parley store"
        case .notFound(let what): return "not found: \(what)"
        case .invalidArgument(let what): return "invalid argument: \(what)"
        case .conflict(let what): return "already exists: \(what)"
        case .limitReached(let what): return "limit reached: \(what)"
        }
    }
}
