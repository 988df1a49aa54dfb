import CSQLite

/// A prepared statement; finalised when released.
final class SQLiteStatement {
    unowned let db: SQLiteDatabase   // the database keeps its statements (a cache), not the reverse
    let handle: OpaquePointer

    init(db: SQLiteDatabase, sql: String) throws(StoreError) {
        self.db = db
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(db.handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw db.error(rc) }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    /// Makes the statement ready to run again: back to its start, bindings cleared.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds positional parameters `?1…?n`. Text and blobs are copied (`SQLITE_TRANSIENT`).
    func bind(_ values: [SQLValue]) throws(StoreError) {
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let n): rc = sqlite3_bind_int64(handle, index, n)
            case .text(let s): rc = sqlite3_bind_text(handle, index, s, -1, parley_sqlite_transient())
            case .blob(let b):
                rc = b.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), parley_sqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw db.error(rc) }
        }
    }

    /// Advances; true if a row is available.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw db.error(rc)
        }
    }

    /// The current row's columns.
    func row() -> [SQLValue] {
        (0..<sqlite3_column_count(handle)).map { column($0) }
    }

    func column(_ i: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .integer(Int64(sqlite3_column_double(handle, i)))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, i) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, i))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, i))
            guard count > 0, let bytes = sqlite3_column_blob(handle, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}
