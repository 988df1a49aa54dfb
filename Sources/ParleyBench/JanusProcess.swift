import Foundation
import Glibc

/// Janus 1.1.2 (Debian package `janus`) started for `rooms-janus`: its configuration is written
/// to a temporary directory (full ICE, as in lite mode libnice answered our checks but never took
/// the component to connected; the HTTP transport on `address:port`; the videoroom and an empty
/// echotest configuration), gathering is limited to `interface` (`-E`), and it is pinned with
/// `taskset` when a CPU is given. `PARLEY_BENCH_JANUS_DEBUG` sets its log level and
/// `PARLEY_BENCH_JANUS_ARGS` adds arguments. Stopped with SIGKILL by its PID; inside the bench's
/// PID namespace it also dies with the bench.
final class JanusProcess: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    let process: Process
    let directory: String
    let baseURL: String
    private static let libraries = "/usr/lib/x86_64-linux-gnu/janus"

    private init(process: Process, directory: String, baseURL: String) {
        self.process = process
        self.directory = directory
        self.baseURL = baseURL
    }

    static func start(interface: String, address: String, port: Int, cpu: Int?) throws -> JanusProcess {
        guard let janus = ["/usr/bin/janus", "/usr/local/bin/janus"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw Failure(description: "janus is missing: scripts/install-deps installs it (Debian package janus)") }
        let directory = NSTemporaryDirectory() + "parley-bench-janus-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try configuration(directory: directory, address: address, port: port)
        let process = Process()
        var arguments = ["-C", "\(directory)/janus.jcfg", "-F", directory, "-E", interface, "-i", address,
                         "-N", "-L", "\(directory)/janus.log", "-o"]
        arguments += (ProcessInfo.processInfo.environment["PARLEY_BENCH_JANUS_ARGS"] ?? "").split(separator: " ").map(String.init)
        if let cpu, FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            arguments = ["-c", "\(cpu)", janus] + arguments   // taskset execs janus: the same PID
        } else {
            process.executableURL = URL(fileURLWithPath: janus)
        }
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: "\(directory)/janus.stderr", contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "\(directory)/janus.stderr") ?? FileHandle.nullDevice
        try process.run()
        return JanusProcess(process: process, directory: directory, baseURL: "http://\(address):\(port)/janus")
    }

    /// utime + stime of every thread of the process, seconds.
    func cpuSeconds() -> Double { BenchSystem.cpuSeconds(pid: process.processIdentifier) }

    /// The last lines of Janus's log (for a failure message).
    func logTail(lines: Int = 15) -> String {
        let log = (try? String(contentsOfFile: "\(directory)/janus.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// SIGKILL by PID, then reaped.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func configuration(directory: String, address: String, port: Int) throws {
        let disabledPlugins = ["audiobridge", "duktape", "lua", "nosip", "recordplay", "sip", "streaming", "textroom",
                               "videocall", "voicemail"].map { "libjanus_\($0).so" }.joined(separator: ",")
        let disabledTransports = ["websockets", "pfunix", "mqtt", "nanomsg", "rabbitmq"].map { "libjanus_\($0).so" }
            .joined(separator: ",")
        let files = [
            "janus.jcfg": """
                general: {
                  configs_folder = "\(directory)"
                  plugins_folder = "\(libraries)/plugins"
                  transports_folder = "\(libraries)/transports"
                  events_folder = "\(libraries)/events"
                  loggers_folder = "\(libraries)/loggers"
                  debug_level = \(ProcessInfo.processInfo.environment["PARLEY_BENCH_JANUS_DEBUG"] ?? "3")
                  session_timeout = 60
                }
                media: { rtp_port_range = "30000-39999" }
                nat: { ice_lite = false }
                plugins: { disable = "\(disabledPlugins)" }
                transports: { disable = "\(disabledTransports)" }
                events: { broadcast = false }
                """,
            "janus.transport.http.jcfg": """
                general: { json = "compact" base_path = "/janus" http = true port = \(port) ip = "\(address)" https = false }
                admin: { admin_http = false }
                """,
            "janus.plugin.videoroom.jcfg": "general: { }\n",
            "janus.plugin.echotest.jcfg": "general: { }\n",
        ]
        for (name, text) in files {
            try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8)
        }
    }
}
