import Foundation
import ParleyStore
import Testing

/// A `--db` naming another application's SQLite file (or no SQLite file at all) is refused and
/// left as it was; empty files and Parley's own stores open as before.
@Suite struct StoreOwnershipTests {
    /// Another application's database: its own table, the default rollback journal, mode 0644.
    private static func foreignDatabase(_ path: String, userVersion: Int32 = 0) throws {
        let db = try SQLiteDatabase(opening: path)
        try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute("INSERT INTO notes (body) VALUES ('keep me')")
        if userVersion != 0 { try db.setUserVersion(userVersion) }
        #expect(chmod(path, 0o644) == 0)
    }

    private static func tables(_ path: String) throws -> [String] {
        try SQLiteDatabase(opening: path).query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .compactMap { $0.first?.string }
    }

    @Test func anotherApplicationsDatabaseIsRefusedUntouched() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("app.db")
        try Self.foreignDatabase(path)
        #expect {
            try SQLiteAccountStore(path: path)
        } throws: { error in
            guard case StoreError.notParleyDatabase(let refused, let reason) = error else { return false }
            return refused == path && reason.contains("notes")
        }
        #expect(try Self.tables(path) == ["notes"])
        #expect(try filePermissions(path) == 0o644)
        let db = try SQLiteDatabase(opening: path)
        #expect(try db.query("PRAGMA journal_mode") == [[.text("delete")]])
        #expect(try db.query("PRAGMA application_id") == [[.integer(0)]])
        #expect(try db.query("SELECT body FROM notes") == [[.text("keep me")]])
    }

    /// A foreign `user_version` is not taken for a Parley schema version (nor called "too new").
    @Test func foreignUserVersionIsNotASchemaVersion() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        for version: Int32 in [2, 7] {
            let path = dir.path("versioned-\(version).db")
            try Self.foreignDatabase(path, userVersion: version)
            #expect {
                try SQLiteAccountStore(path: path)
            } throws: { error in
                if case StoreError.notParleyDatabase = error { true } else { false }
            }
            #expect(try Self.tables(path) == ["notes"])
        }
    }

    @Test func anotherApplicationIDIsRefused() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("other.db")
        try SQLiteDatabase(opening: path).execute("PRAGMA application_id = 1234")
        #expect {
            try SQLiteAccountStore(path: path)
        } throws: { error in
            guard case StoreError.notParleyDatabase(_, let reason) = error else { return false }
            return reason.contains("1234")
        }
    }

    @Test func aFileThatIsNotSQLiteIsRefusedUntouched() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("notes.txt")
        let text = Data(String(repeating: "not a database\n", count: 100).utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: text, attributes: [.posixPermissions: 0o644]))
        #expect(throws: StoreError.notParleyDatabase(path: path, reason: "it is not a SQLite database")) {
            try SQLiteAccountStore(path: path)
        }
        #expect(FileManager.default.contents(atPath: path) == text)
        #expect(try filePermissions(path) == 0o644)
    }

    @Test func theMessageSaysWhatToDo() {
        let error = StoreError.notParleyDatabase(path: "/srv/app.db", reason: "it holds other tables (notes) and no Parley schema")
        #expect(error.description == "/srv/app.db is not a Parley database: it holds other tables (notes) and no Parley schema; "
                                     + "point --db at a new file or an existing Parley store")
    }

    @Test func emptyFilesAndParleyStoresOpenAndAreMarked() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let empty = dir.path("empty.db")
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        let store = try SQLiteAccountStore(path: empty)
        let created = try store.ensureDefaultAccount()
        #expect(try SQLiteDatabase(opening: empty).query("PRAGMA application_id") == [[.integer(0x5052_4C59)]])

        // A store written before the mark existed: Parley's tables and user_version, no application_id.
        let legacy = dir.path("legacy.db")
        let legacyCredentials = try SQLiteAccountStore(path: legacy).ensureDefaultAccount()
        try SQLiteDatabase(opening: legacy).execute("PRAGMA application_id = 0")
        let reopened = try SQLiteAccountStore(path: legacy)
        #expect(try reopened.ensureDefaultAccount().apiKey == legacyCredentials.apiKey)
        #expect(try SQLiteDatabase(opening: legacy).query("PRAGMA application_id") == [[.integer(0x5052_4C59)]])
        #expect(try SQLiteAccountStore(path: empty).ensureDefaultAccount().account == created.account)
    }
}
