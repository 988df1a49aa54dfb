import Foundation
import Glibc
import ParleyCore
import Synchronization

/// A child process (`parley`, `parley netsim`, coturn…) whose standard output — and, when asked,
/// standard error — is collected as it runs. It is ended (SIGTERM, then SIGKILL) when this object
/// goes away, whatever the test did.
public final class CLIProcess: Sendable {
    private let process: Process
    private let collected = Mutex(Data())

    /// Starts `path` with `arguments`; standard input is /dev/null.
    public static func start(_ path: String, _ arguments: [String], captureStandardError: Bool = false) throws -> CLIProcess {
        let cli = CLIProcess(Process())
        cli.process.executableURL = URL(fileURLWithPath: path)
        cli.process.arguments = arguments
        let pipe = Pipe()
        cli.process.standardOutput = pipe
        cli.process.standardError = captureStandardError ? pipe : FileHandle.nullDevice
        cli.process.standardInput = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak cli] handle in
            let data = handle.availableData
            cli?.collected.withLock { $0.append(data) }
        }
        try cli.process.runWithDefaultSignals()
        return cli
    }

    private init(_ process: Process) { self.process = process }

    deinit { end() }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// What it printed so far.
    public var output: String { String(decoding: collected.withLock { $0 }, as: UTF8.self) }

    /// Waits until the output contains `text`; throws after `timeout` (or when the process exited
    /// without printing it).
    public func waitForOutput(_ text: String, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !output.contains(text) {
            guard ContinuousClock.now < deadline else {
                throw ProcessTimeout(description: "no \"\(text)\" within \(timeout) in: \(output)")
            }
            if !process.isRunning {
                try await Task.sleep(for: .milliseconds(100))  // the last output
                if output.contains(text) { return }
                throw ProcessTimeout(description: "exited (\(process.terminationStatus)) without \"\(text)\": \(output)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends `number` (SIGINT, SIGTERM…) to the process.
    public func signal(_ number: Int32) {
        if process.isRunning { kill(process.processIdentifier, number) }
    }

    /// SIGTERM if it still runs.
    public func terminate() {
        if process.isRunning { process.terminate() }
    }

    /// The exit status, waiting up to `timeout` (then the process is killed and this is 137).
    public func exitStatus(timeout: Duration = .seconds(30)) async -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return 137
        }
        try? await Task.sleep(for: .milliseconds(100))  // the last output
        return process.terminationStatus
    }

    private func end() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

public struct ProcessTimeout: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
