import Foundation
import Glibc

/// The programs `parley-bench sip` runs: sipp (Debian's sip-tester) as the load for both servers,
/// and Kamailio as the server to compare with. Each is pinned with `taskset` and stopped by PID.
enum SIPBenchPeers {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// What one sipp run reports: calls that ended as the scenario says, failed ones, messages sent
    /// again, the wall time, and each call's setup time (ms) when the scenario measures one.
    struct SippResult {
        var successful = 0
        var failed = 0
        var retransmissions = 0
        var seconds = 0.0
        var setupMilliseconds: [Double] = []
    }

    static let sipp = "/usr/bin/sipp"
    static let kamailio = "/usr/sbin/kamailio"

    static func requireTools() throws {
        for tool in [sipp, kamailio, "/usr/bin/taskset"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw Failure(description: "\(tool) is missing: scripts/install-deps installs sip-tester, kamailio and util-linux")
        }
    }

    /// Runs the scenario `file` against `target` for `calls` calls at `rate` per second, at most
    /// `limit` at once, on `cpu`. `extra` adds arguments (the injection file, `-sn uas`, …).
    static func runSipp(target: String, scenario file: String?, calls: Int, rate: Int, limit: Int, cpu: Int, localPort: Int,
                        directory: String, extra: [String] = [], timeout: TimeInterval = 300) async throws -> SippResult {
        let tag = "sipp-\(localPort)"
        var arguments = ["-c", "\(cpu)", sipp, target]
        if let file { arguments += ["-sf", file] }
        arguments += ["-m", "\(calls)", "-r", "\(rate)", "-l", "\(limit)", "-i", "127.0.0.1", "-p", "\(localPort)",
                      "-mp", "\(localPort + 2)", "-cp", "\(localPort + 1)", "-nostdin", "-timeout", "\(Int(timeout))",
                      "-trace_rtt", "-rtt_freq", "1", "-trace_err", "-error_file", "\(directory)/\(tag)-errors.log"]
        arguments += extra
        let started = Date()
        let output = try await run("/usr/bin/taskset", arguments, directory: directory, stdout: "\(directory)/\(tag).out")
        var result = parse(screen: output)
        result.seconds = Date().timeIntervalSince(started)
        result.setupMilliseconds = rttSamples(directory: directory)
        if result.failed > 0 || result.successful == 0 {
            let errors = (try? String(contentsOfFile: "\(directory)/\(tag)-errors.log", encoding: .utf8)) ?? ""
            print("    sipp \(tag): \(errors.prefix(700))")
        }
        return result
    }

    /// Starts a sipp UAS (`-sn uas`: 180, 200 with SDP, then the BYE's 200) that runs until stopped.
    static func startCallee(port: Int, cpu: Int, directory: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = ["-c", "\(cpu)", sipp, "-sn", "uas", "-i", "127.0.0.1", "-p", "\(port)", "-mp", "\(port + 2)",
                             "-cp", "\(port + 1)", "-nostdin"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts Kamailio with `configuration` on `cpu`; its children are found by parent PID.
    static func startKamailio(configuration: String, directory: String, cpu: Int) throws -> Process {
        let file = "\(directory)/kamailio.cfg"
        try configuration.write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = ["-c", "\(cpu)", kamailio, "-f", file, "-DD", "-E", "-m", "256", "-M", "16"]
        _ = FileManager.default.createFile(atPath: "\(directory)/kamailio.log", contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "\(directory)/kamailio.log") ?? FileHandle.nullDevice
        try process.run()
        return process
    }

    /// CPU seconds of `pid` and every process whose parent it is (Kamailio's workers).
    static func treeCPUSeconds(_ pid: pid_t) -> Double {
        childPIDs(of: pid).reduce(BenchSystem.cpuSeconds(pid: pid)) { $0 + BenchSystem.cpuSeconds(pid: $1) }
    }

    /// SIGTERM (Kamailio's main process then ends its workers), up to 2 s to exit, then SIGKILL
    /// for it and any child still there (a SIGKILLed Kamailio leaves its workers behind); reaped.
    static func stop(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        let children = childPIDs(of: pid)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<40 where waitpid(pid, &status, WNOHANG) == 0 { usleep(50_000) }
        for child in children { kill(child, SIGKILL) }
        if kill(pid, 0) == 0 {
            kill(pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
        }
    }

    /// The processes whose parent is `pid`.
    static func childPIDs(of pid: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let child = pid_t(entry), child != pid,
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    /// Waits for `process` to end by polling `waitpid`: Foundation's termination monitor is not
    /// relied on, as it stopped reporting children here once the in-process server had run.
    static func waitForExit(_ process: Process) async {
        let pid = process.processIdentifier
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || reaped == -1 { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Reads the counters off sipp's last statistics and scenario screens.
    static func parse(screen: String) -> SippResult {
        var result = SippResult()
        func cumulative(_ line: Substring) -> Int {
            Int(line.split(separator: "|").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
        for line in screen.split(separator: "\n") {
            if line.contains("Successful call") { result.successful = cumulative(line) }
            if line.contains("Failed call") { result.failed = cumulative(line) }
        }
        // The scenario screen's message rows: "REGISTER ---------->  20000  925  0"; the second
        // number is the retransmissions. Only the last screen counts.
        if let last = screen.range(of: "Scenario Screen", options: .backwards) {
            for line in screen[last.upperBound...].split(separator: "\n") where line.contains("---------->") {
                let numbers = line.split(separator: " ").compactMap { Int($0) }
                if numbers.count >= 2 { result.retransmissions += numbers[1] }
            }
        }
        return result
    }

    /// Every `rtd` sample of the run (`-trace_rtt`: `date_ms;response_time_ms;rtd_no`), then the
    /// file is removed so the next run starts clean.
    static func rttSamples(directory: String) -> [Double] {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix("_rtt.csv") }
        var samples: [Double] = []
        for name in files {
            let path = "\(directory)/\(name)"
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: ";")
                if fields.count >= 2, let value = Double(fields[1]) { samples.append(value) }
            }
            try? FileManager.default.removeItem(atPath: path)
        }
        return samples
    }

    /// Runs a program to its end without holding a thread, and returns its standard output
    /// (kept in `stdout`'s file).
    private static func run(_ executable: String, _ arguments: [String], directory: String, stdout path: String) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: path) ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        await waitForExit(process)
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Waits until a UDP socket is bound to `port` (`/proc/net/udp`), up to `timeout`.
    static func waitForUDPPort(_ port: Int, timeout: TimeInterval = 10) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        let needle = String(format: ":%04X ", port)
        while Date() < deadline {
            let table = FileHandle(forReadingAtPath: "/proc/net/udp").map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
            if table.split(separator: "\n").contains(where: { $0.split(separator: " ").dropFirst().first.map { "\($0) ".hasSuffix(needle) } ?? false }) {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "nothing listened on UDP port \(port) within \(Int(timeout)) s")
    }
}
