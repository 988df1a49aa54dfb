import Foundation
import Glibc
import ParleyCore
import ParleyServer
import ServerMedia
import ParleyStore
import ParleyTestSupport
import Testing

/// Operator mistakes that used to start a server which then failed quietly: `--db` naming another
/// application's SQLite file, `--recordings` that cannot be written, `--public-url` that is not a
/// URL, `--media-advertise` that is not an IP. Each is refused at start with a clear message.
@Suite(.tags(.process)) struct OperatorMistakeTests {
    /// Runs `program arguments…` and waits up to 20 s for it to exit. A program still running then
    /// (it started when it should have refused) is stopped and reported as a failure.
    static func exitOf(_ program: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = try Executables.url(program)
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.runWithDefaultSignals()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) started instead of refusing")
        }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit, "\(program) was killed by a signal: \(stderr)")
        return (process.terminationStatus, stderr)
    }

    /// A SQLite file of another application: one table of its own.
    static func foreignDatabase(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("notes-app.db").path
        let db = try SQLiteDatabase(opening: path)
        try db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        return path
    }

    static func tables(_ path: String) throws -> [String] {
        try SQLiteDatabase(opening: path).query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .compactMap { $0.first?.string }
    }

    // MARK: --db

    @Test func serverRefusesAnotherApplicationsDatabase() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.foreignDatabase(in: dir)
        let result = try Self.exitOf("parley-server", ["--http", "127.0.0.1:0", "--db", db,
                                                       "--recordings", dir.appendingPathComponent("rec").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("parley-server: cannot start: \(db) is not a Parley database: "
                                       + "it holds other tables (notes) and no Parley schema"), "\(result.stderr)")
        #expect(try Self.tables(db) == ["notes"])
    }

    @Test func cliRefusesAnotherApplicationsDatabase() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.foreignDatabase(in: dir)
        for command in [["keys", "create"], ["keys", "list"], ["apps", "list"], ["account"],
                        ["token", "voice", "--identity", "alice"]] {
            let result = try Self.exitOf("parley", command + ["--db", db])
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("parley: \(db) is not a Parley database"), "\(command): \(result.stderr)")
        }
        #expect(try Self.tables(db) == ["notes"])
    }

    // MARK: --recordings

    @Test func serverRefusesRecordingsItCannotWrite() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a-file").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        // A regular file, a path below one, and a directory nobody may create files in (sysfs
        // refuses even root, which these tests may run as).
        let cases = [(file, "is not a directory"), (file + "/recordings", "cannot be used: Not a directory"),
                     ("/sys", "is not writable: Permission denied")]
        for (recordings, why) in cases {
            let result = try Self.exitOf("parley-server", ["--http", "127.0.0.1:0", "--db", dir.appendingPathComponent("p.db").path,
                                                           "--recordings", recordings])
            #expect(result.status == 1, "\(recordings): \(result.stderr)")
            #expect(result.stderr.contains("parley-server: cannot start: --recordings \(recordings) \(why)"),
                    "\(recordings): \(result.stderr)")
        }
    }

    @Test func serverCreatesAMissingRecordingsDirectoryOwnerOnly() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let recordings = dir.appendingPathComponent("var/recordings").path
        let server = try ServerProcess(arguments: ["--recordings", recordings])
        defer { server.stop() }
        for path in [recordings, dir.appendingPathComponent("var").path] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(path)")
        }
        // The write probe is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: recordings).isEmpty)
    }

    @Test func recordingFilesAreOwnerOnly() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("RE1.wav").path
        let recorder = try CallRecorder(path: path)
        _ = try recorder.finish()
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    // MARK: --public-url

    @Test func publicURLMustBeAnAbsoluteHTTPURL() throws {
        for good in ["https://voice.example.com", "http://127.0.0.1:8080/", "https://[2001:db8::1]:8443/parley/",
                     "HTTPS://Voice.Example.com/base/path", "http://localhost:1", "https://voice.example.com/a%20b"] {
            #expect(try ServerConfiguration.parse(["--public-url", good]).publicURL == good)
        }
        let bad: [(String, String)] = [
            ("voice.example.com", "the scheme must be http or https"), ("ftp://voice.example.com", "the scheme"),
            ("https://", "no host"), ("https:/voice.example.com", "no host"),
            ("https://voice.example.com/?a=1", "no query or fragment"), ("https://voice.example.com#x", "no query or fragment"),
            ("https://user:secret@voice.example.com", "no user info"), ("https://voice.example.com:0", "bad port"),
            ("https://voice.example.com:99999", "bad port"), ("https://voice.example.com:http", "bad port"),
            ("https://voice.example.com:", "bad port"), ("https://exa mple.com", "bad host"), ("https://.com", "bad host"),
            ("https://voice.example.com/a b", "the path"), ("https://[2001:db8::1", "unclosed"),
            ("https://[not-v6]/", "bad IPv6"), ("https://[::1]x/", "junk after"),
        ]
        for (value, why) in bad {
            #expect {
                try ServerConfiguration.parse(["--public-url", value])
            } throws: { error in
                let message = (error as? ConfigurationError)?.message ?? ""
                return message.hasPrefix("--public-url wants an absolute http(s) URL") && message.contains(why)
            }
        }
    }

    @Test func serverExitsTwoOnABadPublicURL() throws {
        let result = try Self.exitOf("parley-server", ["--http", "127.0.0.1:0", "--public-url", "voice.example.com"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--public-url wants an absolute http(s) URL such as https://voice.example.com, "
                                       + "got voice.example.com: the scheme must be http or https"), "\(result.stderr)")
    }

    // MARK: --media-advertise

    @Test func mediaAdvertiseTakesIPLiterals() throws {
        let config = try ServerConfiguration.parse(["--media", "[::]:0", "--media-advertise", "203.0.113.7,2001:db8::7"])
        #expect(config.mediaAdvertisedHosts == ["203.0.113.7", "2001:db8::7"])
        #expect(try ServerConfiguration.parse([]).mediaAdvertisedHosts.isEmpty)
        let bad: [([String], String)] = [
            (["--media-advertise", "voice.example.com"], "got \"voice.example.com\""),
            (["--media-advertise", "203.0.113.7:5000"], "got \"203.0.113.7:5000\""),
            (["--media-advertise", "203.0.113.7,"], "got \"\""),
            (["--media-advertise", "0.0.0.0"], "got \"0.0.0.0\""),
            (["--media-advertise", "[2001:db8::7]"], "got \"[2001:db8::7]\""),
            (["--media", "0.0.0.0:0", "--media-advertise", "2001:db8::7"], "is IPv6 but --media binds IPv4"),
        ]
        for (arguments, why) in bad {
            #expect {
                try ServerConfiguration.parse(arguments)
            } throws: { error in
                ((error as? ConfigurationError)?.message ?? "").contains(why)
            }
        }
    }
}
