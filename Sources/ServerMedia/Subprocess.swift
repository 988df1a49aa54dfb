import Foundation
import ParleyCore
import Synchronization

/// The server's helper programs (`espeak-ng` for `<Say>`, `ffmpeg` for recordings and
/// compositions), run one way: on a Dispatch thread (they block reading their pipes), off the
/// media loops and Swift's cooperative threads, killed when they outlive `timeout` or when their
/// `SubprocessGroup` is shut down.
package enum Subprocess {
    package struct Outcome: Sendable {
        package var status: Int32
        package var stdout: [UInt8]
        package var stderr: [UInt8]
        /// Killed by a signal: its timeout, or its group's shutdown.
        package var killed: Bool

        package var succeeded: Bool { !killed && status == 0 }

        /// The first line of stderr, for error messages.
        package var firstErrorLine: String? {
            String(decoding: stderr.prefix(300), as: UTF8.self).split(separator: "\n").first.map(String.init)
        }
    }

    /// Runs `path` with `arguments`, `input` on stdin; nil when it cannot be started (or the
    /// group is shut down). stdout and stderr are read whole: callers keep them small. With
    /// `onStdout`, stdout goes to it chunk by chunk as the program writes it instead (the
    /// outcome's is empty), all of it before `run` returns; stderr is read after stdout closes, so
    /// such a program must keep its stderr under the pipe's buffer (64 KiB).
    package static func run(_ path: String, arguments: [String], input: [UInt8] = [], timeout: Duration,
                            group: SubprocessGroup? = nil, onStdout: (@Sendable ([UInt8]) -> Void)? = nil) async -> Outcome? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: runBlocking(path, arguments: arguments, input: input, timeout: timeout, group: group,
                                                           onStdout: onStdout))
            }
        }
    }

    private static func runBlocking(_ path: String, arguments: [String], input: [UInt8], timeout: Duration,
                                    group: SubprocessGroup?, onStdout: (@Sendable ([UInt8]) -> Void)?) -> Outcome? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        guard group?.admit(process) ?? true else { return nil }
        defer { group?.remove(process) }
        do {
            try process.runWithDefaultSignals()
        } catch {
            Log.warning(.platform, "cannot run \(path): \(error)")
            return nil
        }
        if group?.isClosed == true { process.terminate() }  // shut down while it started
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds, execute: killer)
        defer { killer.cancel() }
        // Inputs are a few kB at most, far below the pipe buffer: writing cannot block.
        stdin.fileHandleForWriting.write(Data(input))
        try? stdin.fileHandleForWriting.close()
        var output = Data()
        if let onStdout {
            while true {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                onStdout([UInt8](chunk))
            }
        } else {
            output = stdout.fileHandleForReading.readDataToEndOfFile()
        }
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: [UInt8](output), stderr: [UInt8](errors),
                       killed: process.terminationReason == .uncaughtSignal)
    }

    /// `name` found in `PATH`, else nil.
    package static func findInPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// The helper programs one owner runs, so that its shutdown can end them: `shutdown()` kills
/// every one still running and refuses new ones.
package final class SubprocessGroup: Sendable {
    private struct State {
        var running: [ObjectIdentifier: Process] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    package init() {}

    var isClosed: Bool { state.withLock { $0.closed } }

    /// How many are running now.
    package var count: Int { state.withLock { $0.running.count } }

    func admit(_ process: Process) -> Bool {
        state.withLock { s in
            guard !s.closed else { return false }
            s.running[ObjectIdentifier(process)] = process
            return true
        }
    }

    func remove(_ process: Process) {
        _ = state.withLock { $0.running.removeValue(forKey: ObjectIdentifier(process)) }
    }

    /// Kills (SIGTERM) what runs and refuses what comes.
    package func shutdown() {
        let running = state.withLock { s -> [Process] in
            s.closed = true
            return Array(s.running.values)
        }
        for process in running where process.isRunning { process.terminate() }
    }
}
