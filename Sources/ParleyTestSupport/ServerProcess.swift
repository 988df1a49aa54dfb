import AccessToken
import Foundation
import Glibc
import ParleyCore
import ParleyStore

/// `parley-server` as users run it: its own process, on free loopback ports, with a fresh SQLite
/// store in a temporary directory. The store's default account and API key are created before the
/// server starts, so tests can mint tokens with the key's secret. The process ends with `stop()`
/// or when this object goes away, whatever the test did.
public final class ServerProcess: @unchecked Sendable {
    public let directory: URL
    public let databasePath: String
    public let credentials: DefaultCredentials
    public private(set) var port = 0
    private let process = Process()
    private let output = Pipe()
    private var stopped = false
    /// Whether `stop()` removes the directory (not after `crash()`: a restart reuses it).
    private var ownsDirectory = true

    /// Starts the server with `arguments` added to `--http 127.0.0.1:0 --db … --recordings …`,
    /// and returns once it has printed the address it listens on. `prepare` runs on the store's
    /// path before the server starts (e.g. `parley keys create` as a process).
    public convenience init(arguments: [String] = [], prepare: (_ databasePath: String) throws -> Void = { _ in }) throws {
        try self.init(directory: FileManager.default.temporaryDirectory.appendingPathComponent("parley-server-\(UUID().uuidString)"),
                      arguments: arguments, prepare: prepare)
    }

    /// A new process on the store and recordings of `crashed` (after its `crash()`), e.g. to see
    /// what a restart does with what the crash left; it owns the directory from then on.
    public convenience init(restarting crashed: ServerProcess, arguments: [String] = []) throws {
        try self.init(directory: crashed.directory, arguments: arguments, prepare: { _ in })
    }

    private init(directory: URL, arguments: [String], prepare: (_ databasePath: String) throws -> Void) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("parley.db").path
        credentials = try SQLiteAccountStore(path: databasePath).ensureDefaultAccount()
        try prepare(databasePath)
        // PARLEY_SERVER_BIN runs another build (e.g. release) under the same tests.
        let binary = try ProcessInfo.processInfo.environment["PARLEY_SERVER_BIN"] ?? BuiltProducts.path("parley-server")
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--http", "127.0.0.1:0", "--db", databasePath,
                             "--recordings", directory.appendingPathComponent("recordings").path] + arguments
        process.standardOutput = output
        // PARLEY_TEST_SERVER_LOG=FILE keeps the server's debug log for a failing test.
        if let log = ProcessInfo.processInfo.environment["PARLEY_TEST_SERVER_LOG"],
           FileManager.default.createFile(atPath: log, contents: nil), let handle = FileHandle(forWritingAtPath: log) {
            process.arguments! += ["--log-level", "debug"]
            process.standardError = handle
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.runWithDefaultSignals()
        var line = Data()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data([0x0A]) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = Int(text[range].split(separator: ":").last!) else {
            stop()
            throw ServerProcessError(description: "parley-server did not report its address: \(text)")
        }
        self.port = port
    }

    deinit { stop() }

    public var pid: Int32 { process.processIdentifier }
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var isRunning: Bool { process.isRunning }

    /// A voice access token for `identity`, signed with the store's default API key.
    public func token(identity: String, ttl: Int64 = 3600, incoming: Bool = true, outgoingApplication: String? = nil) throws -> String {
        try AccessTokenBuilder.mint(accountSid: credentials.account.sid, apiKeySid: credentials.apiKey.sid,
                                    apiSecret: credentials.apiKey.secret, identity: identity, ttl: ttl,
                                    grants: [.voice(VoiceGrant(incomingAllow: incoming, outgoingApplicationSid: outgoingApplication))],
                                    now: Int64(Date().timeIntervalSince1970))
    }

    /// SIGKILL, as a crash: nothing is shut down, and the directory stays for `init(restarting:)`.
    public func crash() {
        guard !stopped else { return }
        stopped = true
        ownsDirectory = false
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Resident memory now, in kB (`VmRSS` of /proc/PID/status).
    public func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// User plus system CPU time used so far, in seconds (/proc/PID/stat).
    public func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Open descriptors now (entries of /proc/PID/fd).
    public func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    /// Open descriptors once the count has held still for 300 ms (the server opens a few more —
    /// signal and timer descriptors — just after it reports its address).
    public func settledDescriptors() async -> Int {
        var last = openDescriptors(), since = ContinuousClock.now
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            let now = openDescriptors()
            if now != last { (last, since) = (now, .now) } else if ContinuousClock.now - since >= .milliseconds(300) { break }
        }
        return last
    }

    /// SIGTERM, then SIGKILL if it has not exited within 10 s; removes the directory.
    public func stop() { _ = terminate() }

    /// Like `stop()`, returning how it ended: the exit status after SIGTERM, nil if it had to be
    /// killed (or was already stopped).
    public func terminate() -> Int32? {
        guard !stopped else { return nil }
        stopped = true
        defer { if ownsDirectory { try? FileManager.default.removeItem(at: directory) } }
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let graceful = !process.isRunning
        if !graceful { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return graceful ? process.terminationStatus : nil
    }
}

public struct ServerProcessError: Error, CustomStringConvertible {
    public let description: String
}
