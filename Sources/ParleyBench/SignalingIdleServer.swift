import Foundation
import Glibc
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTestSupport
import PlatformCore

/// The server `parley-bench signaling-idle` connects to: by default the built `parley-server` as
/// a child process (its `VmRSS` is then the server's memory alone), or with `--in-process 1` a
/// `PlatformServer` in the bench process (for heap profilers such as heaptrack, which then see
/// the server's allocations; the blocking clients allocate nothing per connection that stays).
struct IdleServer {
    let pid: pid_t
    let port: Int
    let credentials: DefaultCredentials
    private let process: Process?
    private let platform: PlatformServer?

    static func start(directory: String, inProcess: Bool) async throws -> IdleServer {
        if inProcess {
            var config = ServerConfiguration()
            config.port = 0
            config.mediaPort = 0
            config.recordingsDirectory = directory + "/recordings"
            config.quotas.perKey.connections = QuotaLimits.maxLimit  // every bench token is signed by one key
            let platform = try PlatformServer(configuration: config, store: InMemoryAccountStore())
            try platform.start()
            return IdleServer(pid: getpid(), port: platform.port, credentials: platform.defaultCredentials,
                              process: nil, platform: platform)
        }
        // The store is created here so that the bench knows the default key that signs the tokens.
        let credentials = try SQLiteAccountStore(path: directory + "/parley.db").ensureDefaultAccount()
        let port = try SignalingIdleBench.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProducts.path("parley-server"))
        process.arguments = ["--http", "127.0.0.1:\(port)", "--db", directory + "/parley.db", "--log-level", "error",
                             "--recordings", directory + "/recordings",
                             "--max-connections-per-key", "\(QuotaLimits.maxLimit)"]  // every bench token is signed by one key
        _ = FileManager.default.createFile(atPath: directory + "/server.log", contents: nil)
        let log = FileHandle(forWritingAtPath: directory + "/server.log")
        process.standardOutput = log
        process.standardError = log
        try process.runWithDefaultSignals()
        let server = IdleServer(pid: process.processIdentifier, port: port, credentials: credentials, process: process,
                                platform: nil)
        guard await SignalingIdleBench.waitForHealth(port: port) else {
            server.stop()
            throw SignalingIdleClient.Failed(description: "parley-server did not answer /healthz; see \(directory)/server.log")
        }
        return server
    }

    /// Nil while the server runs; otherwise how the child ended and the end of its log.
    func exitReport(directory: String) -> String? {
        guard let process, !process.isRunning else { return nil }
        let reason = process.terminationReason == .uncaughtSignal ? "signal" : "status"
        let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
        let tail = log.split(separator: "\n").suffix(8).joined(separator: "\n    ")
        return "parley-server exited (\(reason) \(process.terminationStatus)); last log lines:\n    \(tail)"
    }

    /// Kills the child (SIGKILL: a graceful shutdown would run 50,000 close handshakes). The
    /// in-process server is left to the process's exit, for the same reason.
    func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
