import Foundation
import ParleyCore
import ParleyTestSupport

/// Runs a Python orchestrator that drives headless Chromium against a real `parley-server`, inside
/// a fresh network + PID namespace that has only `lo`, so neither the browsers nor the server can
/// send a packet off the machine:
///
///     unshare --net --pid --fork --kill-child --mount-proc python3 orchestrate.py DIR SERVER CLI CHROMIUM ARGS…
///
/// The orchestrator (PID 1 of the namespace) is `ChromiumScripts.prelude` (bring `lo` up, start
/// the built `parley-server`, mint tokens with the built `parley`, Chromium's flags, stop every
/// child by its PID, print one JSON line) followed by the run's own part: the echo page
/// (`ChromiumScripts.echo`) or the two-browser room (`ChromiumScripts.room`). Killing `unshare` by
/// its PID SIGKILLs the namespace's PID 1, and the kernel then kills everything left in it.
struct ChromiumRun {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let process = Process()
    let directory: URL
    let stdoutURL: URL
    let stderrURL: URL

    /// The echo page against `POST /v1/echo`. `video`: the page offers its fake camera too (audio +
    /// video, BUNDLE). `red`: the page puts RED (RFC 2198) first with `setCodecPreferences`, so
    /// Chromium sends it; false removes it.
    static func echo(statsMilliseconds: Int = 4000, video: Bool = false, red: Bool = true) throws -> ChromiumRun {
        try ChromiumRun(orchestrator: ChromiumScripts.echo, files: ["page.html": ChromiumScripts.echoPage],
                        arguments: [String(statsMilliseconds), video ? "1" : "0", red ? "1" : "0"])
    }

    /// Two Chromium instances (`alice`, `bob`) on the server's own room page, driven over the
    /// DevTools protocol (`ChromiumScripts.room`); `slots`: the receive slots per kind each page
    /// offers up front (nil: the page's default).
    static func room(_ name: String, mediaSeconds: Int, slots: Int? = nil, publishKbps: Int? = nil) throws -> ChromiumRun {
        try ChromiumRun(orchestrator: ChromiumScripts.browser + ChromiumScripts.room, files: [:],
                        arguments: [name, String(mediaSeconds), slots.map(String.init) ?? "", publishKbps.map(String.init) ?? ""])
    }

    /// A built product (`parley-server`, `parley`) beside the test bundle.
    static func builtExecutable(_ name: String) throws -> String { try BuiltProducts.path(name) }

    /// The first executable of `candidates`, or a failure naming what to install.
    static func system(_ candidates: [String], install: String) throws -> String {
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) { return path }
        throw Failure(description: "\(candidates[0]) not found (looked for \(candidates.joined(separator: ", "))): "
                      + "install it with `apt-get install -y --no-install-recommends \(install)` or run scripts/install-deps")
    }

    /// Chromium: `$PARLEY_CHROMIUM`, or Debian's `chromium`, or `chromium-browser`.
    static func chromium() throws -> String {
        var candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium"]
        if let explicit = ProcessInfo.processInfo.environment["PARLEY_CHROMIUM"] { candidates.insert(explicit, at: 0) }
        return try system(candidates, install: "chromium")
    }

    /// Writes the orchestrator (the prelude + `orchestrator`) and `files` to a fresh temporary
    /// directory and starts the run. Fails (never skips) when Chromium, unshare, ip, python3 or the
    /// built executables are missing, or when the test is not root (a network namespace needs
    /// CAP_SYS_ADMIN).
    init(orchestrator: String, files: [String: String] = [:], arguments: [String]) throws {
        let chromium = try Self.chromium()
        let unshare = try Self.system(["/usr/bin/unshare", "/bin/unshare"], install: "util-linux")
        _ = try Self.system(["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"], install: "iproute2")
        let python = try Self.system(["/usr/bin/python3", "/usr/local/bin/python3"], install: "python3")
        let server = try Self.builtExecutable("parley-server")
        let cli = try Self.builtExecutable("parley")
        guard getuid() == 0 else {
            throw Failure(description: "the Chromium interop tests need root to create a private network namespace (unshare --net)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("orchestrate.py")
        try (ChromiumScripts.prelude + orchestrator).write(to: script, atomically: true, encoding: .utf8)
        for (name, contents) in files {
            try contents.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        stdoutURL = directory.appendingPathComponent("run.stdout")
        stderrURL = directory.appendingPathComponent("run.stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: unshare)
        process.arguments = ["--net", "--pid", "--fork", "--kill-child", "--mount-proc",
                             python, script.path, directory.path, server, cli, chromium] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        do {
            try process.runWithDefaultSignals()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Waits up to `timeout` for the run to end; kills it otherwise. True when it ended by itself.
    func wait(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        guard process.isRunning else { return true }
        kill()
        return false
    }

    /// Stops `unshare` by its PID with SIGKILL (with `--fork` it ignores SIGTERM and SIGINT while it
    /// waits); `--kill-child` then SIGKILLs the namespace's PID 1, and the kernel kills every other
    /// process in the PID namespace with it, so nothing (Chromium's helpers included) outlives the run.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        let reap = ContinuousClock.now + .seconds(3)
        while process.isRunning, ContinuousClock.now < reap { usleep(20_000) }
    }

    /// Kills whatever is left and removes the temporary directory (the namespace dies with its processes).
    func cleanUp() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The orchestrator's JSON line.
    func report() throws -> [String: Any] {
        for line in stdout.split(separator: "\n").reversed() {
            if let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                return object
            }
        }
        throw Failure(description: "the Chromium run printed no JSON (exit \(process.isRunning ? -1 : process.terminationStatus))\n"
                      + "stdout:\n\(stdout.suffix(4000))\nstderr:\n\(stderr.suffix(4000))")
    }

    /// A JSON number as a Double (JSONSerialization gives whole numbers as Int).
    static func number(_ value: Any?) -> Double {
        if let d = value as? Double { return d }
        if let i = value as? Int { return Double(i) }
        return 0
    }
}
