import Foundation
import Glibc
import ParleyCore
import Synchronization

/// The bench's side of one `calls-client` process (`CallsBenchWorker`): starts it, sends command
/// lines on its stdin, and sorts the lines it answers with: per-leg and per-call results go to
/// whoever waits for them (and wait there if nobody does yet), offers are kept, and everything
/// else is the reply to the one outstanding request, up to `END`.
final class CallsBenchWorkerLink: Sendable {
    struct Failed: Error, CustomStringConvertible { let description: String }

    let firstCall: Int
    let callCount: Int
    private let process: Process
    private let input: FileHandle
    private let state = Mutex(State())

    private struct State {
        var offers: [Int: String] = [:]
        var ready = false
        var readyWaiters: [CheckedContinuation<Bool, Never>] = []
        var arrived: [String: String] = [:]
        var waiters: [String: CheckedContinuation<String, Never>] = [:]
        var reply: [String] = []
        var replyWaiter: CheckedContinuation<[String], Never>?
        var closed = false
    }

    /// Starts `parley-bench calls-client` for calls `first..<first+count`, pinned to CPU 1 with
    /// `taskset` when `pin` (so every thread it starts is).
    init(first: Int, count: Int, pin: Bool, command: String = "calls-client", extra: [String] = []) throws {
        firstCall = first
        callCount = count
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        var arguments = [command] + extra + ["--first-call", "\(first)", "--calls", "\(count)", "--pin", "0"]
        if pin, FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            arguments = ["-c", "1", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            if pin { arguments[arguments.count - 1] = "1" }
        }
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.runWithDefaultSignals()
        self.process = process
        input = stdin.fileHandleForWriting
        let reader = stdout.fileHandleForReading
        Thread.detachNewThread { [self] in readLines(reader) }
    }

    var pid: pid_t { process.processIdentifier }

    func send(_ line: String) {
        state.withLock { _ in input.write(Data((line + "\n").utf8)) }
    }

    /// Waits for `READY`; returns the offers by leg.
    func offers() async throws -> [Int: String] {
        let ready = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            let now: Bool? = state.withLock { s in
                if s.ready || s.closed { return s.ready }
                s.readyWaiters.append(c)
                return nil
            }
            if let now { c.resume(returning: now) }
        }
        guard ready else { throw Failed(description: "calls-client \(pid) exited before READY") }
        return state.withLock { $0.offers }
    }

    /// The line answering for `key` (`leg:N`, `call:N`): CONNECTED/FAILED, PLACED/PLACEFAILED.
    func result(_ key: String) async -> String {
        await withCheckedContinuation { (c: CheckedContinuation<String, Never>) in
            let now: String? = state.withLock { s in
                if let line = s.arrived.removeValue(forKey: key) { return line }
                if s.closed { return "FAILED closed" }
                s.waiters[key] = c
                return nil
            }
            if let now { c.resume(returning: now) }
        }
    }

    /// Sends `command` and returns its reply lines (without `END`).
    func request(_ command: String) async -> [String] {
        await withCheckedContinuation { (c: CheckedContinuation<[String], Never>) in
            let closed = state.withLock { s in
                s.reply = []
                s.replyWaiter = c
                return s.closed
            }
            if closed { return finishReply() }
            send(command)
        }
    }

    func quit() {
        send("QUIT")
        process.waitUntilExit()
    }

    private func readLines(_ reader: FileHandle) {
        var pending = Data()
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                dispatch(line)
            }
        }
        let (ready, waiters) = state.withLock { s in
            s.closed = true
            defer { s.readyWaiters = []; s.waiters = [:] }
            return (s.readyWaiters, Array(s.waiters.values))
        }
        for waiter in ready { waiter.resume(returning: false) }
        for waiter in waiters { waiter.resume(returning: "FAILED closed") }
        finishReply()
    }

    private func dispatch(_ line: String) {
        let fields = line.split(separator: " ", maxSplits: 2)
        guard let kind = fields.first else { return }
        switch kind {
        case "LEG" where fields.count == 3:
            guard let leg = Int(fields[1]), let data = Data(base64Encoded: String(fields[2])) else { return }
            state.withLock { $0.offers[leg] = String(decoding: data, as: UTF8.self) }
        case "READY":
            let waiters = state.withLock { s in
                s.ready = true
                defer { s.readyWaiters = [] }
                return s.readyWaiters
            }
            for waiter in waiters { waiter.resume(returning: true) }
        case "CONNECTED", "FAILED", "PLACED", "PLACEFAILED":
            guard fields.count >= 2 else { return }
            let key = (kind.hasPrefix("PLACE") ? "call:" : "leg:") + fields[1]
            let waiter = state.withLock { s -> CheckedContinuation<String, Never>? in
                if let waiter = s.waiters.removeValue(forKey: key) { return waiter }
                s.arrived[key] = line
                return nil
            }
            waiter?.resume(returning: line)
        case "END":
            finishReply()
        default:
            state.withLock { $0.reply.append(line) }
        }
    }

    private func finishReply() {
        let (waiter, lines) = state.withLock { s in
            defer { s.replyWaiter = nil; s.reply = [] }
            return (s.replyWaiter, s.reply)
        }
        waiter?.resume(returning: lines)
    }
}
