import Foundation
import Glibc
import ParleyCore
import ParleyTestSupport
import Testing

/// The package root, found from this file's path (Tests/ParleyNetTests/TestSupport.swift).
let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The venv Python with `websockets`; a missing venv fails the test rather than skipping it.
func venvPython() throws -> String {
    let path = packageRoot.appendingPathComponent(".venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw TestFailure("Python venv missing at \(path): create it with `python3 -m venv .venv && .venv/bin/pip install websockets`")
    }
    return path
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// A child process whose output is collected on separate threads.
final class RunningProcess: Sendable {
    let process: Process
    let description: String
    private let outReader: Task<Data, Never>
    private let errReader: Task<Data, Never>

    init(_ executable: String, _ arguments: [String], stdin: [UInt8]? = nil) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.runWithDefaultSignals()
        self.process = process
        description = "\(executable) \(arguments)"
        // Blocking reads run on their own threads: the cooperative pool has only as many threads as
        // cores, and the server under test needs them.
        outReader = Task { await onThread { out.fileHandleForReading.readDataToEndOfFile() } }
        errReader = Task { await onThread { err.fileHandleForReading.readDataToEndOfFile() } }
        let writer = input.fileHandleForWriting
        await onThread {
            if let stdin { writer.write(Data(stdin)) }
            try? writer.close()
        }
    }

    /// Waits for exit (killing the process after `timeout`) and returns its output.
    func finish(timeout: Duration) async throws -> ProcessResult {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                throw TestFailure("\(description) timed out; stderr: \(String(decoding: await errReader.value, as: UTF8.self))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let stdout = String(decoding: await outReader.value, as: UTF8.self)
        let stderr = String(decoding: await errReader.value, as: UTF8.self)
        return ProcessResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}

/// Runs a program to completion (killed after `timeout`), feeding `stdin` and collecting output.
func runProcess(_ executable: String, _ arguments: [String], stdin: [UInt8]? = nil,
                timeout: Duration = .seconds(30)) async throws -> ProcessResult {
    try await RunningProcess(executable, arguments, stdin: stdin).finish(timeout: timeout)
}

/// Runs blocking work on a fresh thread instead of the cooperative pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A temporary directory removed by the caller.
func makeTempDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-net-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A self-signed P-256 certificate for 127.0.0.1 and localhost (see `TestCertificate`).
func makeSelfSignedCertificate(in directory: URL) async throws -> (cert: String, key: String) {
    try await TestCertificate.makeSelfSigned(in: directory)
}

/// A blocking raw TCP client to 127.0.0.1 for sending arbitrary bytes, with a receive timeout.
final class RawClient: @unchecked Sendable {
    let fd: Int32

    init(port: Int, receiveTimeout: Duration = .seconds(5)) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw TestFailure("connect failed: errno \(errno)") }
        var tv = timeval(tv_sec: Int(receiveTimeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// Reads (on a separate thread) until EOF, timeout, or `marker` appears in the data.
    func receive(until marker: String? = nil) async -> String {
        await onThread { self.receiveBlocking(until: marker) }
    }

    private func receiveBlocking(until marker: String?) -> String {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data += buffer[0..<n]
            if let marker, String(decoding: data, as: UTF8.self).contains(marker) { break }
        }
        return String(decoding: data, as: UTF8.self)
    }
}
