import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// The package root, found from this file's path (Tests/PushNotificationsTests/PushTestSupport.swift).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The project venv's Python (with `h2`, `pyjwt`, `cryptography`); a missing venv fails the test.
func venvPython() throws -> String {
    let path = packageRoot.appendingPathComponent(".venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: path) else { throw TestFailure("Python venv missing at \(path)") }
    return path
}

/// A fresh temporary directory.
func makeTempDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-push-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs blocking work on a fresh thread instead of the cooperative pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
}

/// Runs a program to completion (killed after `timeout`) and returns its status and output.
func run(_ executable: String, _ arguments: [String], stdin: String? = nil,
         timeout: Duration = .seconds(20)) async throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.runWithDefaultSignals()
    async let stdout = onThread { out.fileHandleForReading.readDataToEndOfFile() }
    async let stderr = onThread { err.fileHandleForReading.readDataToEndOfFile() }
    let writer = input.fileHandleForWriting
    let text = stdin
    await onThread {
        if let text { writer.write(Data(text.utf8)) }
        try? writer.close()
    }
    let deadline = ContinuousClock.now + timeout
    while process.isRunning {
        if ContinuousClock.now > deadline {
            process.terminate()
            throw TestFailure("\(executable) timed out")
        }
        try await Task.sleep(for: .milliseconds(10))
    }
    return (process.terminationStatus, String(decoding: await stdout, as: UTF8.self), String(decoding: await stderr, as: UTF8.self))
}

/// A self-signed P-256 certificate for 127.0.0.1 and localhost (see `TestCertificate`).
func makeSelfSignedCertificate(in directory: URL) async throws -> (cert: String, key: String) {
    try await TestCertificate.makeSelfSigned(in: directory)
}

/// `h2_test_server.py` running in the venv; stops when `stop()` closes its stdin. Its stderr goes
/// to `logPath`, shown when it fails to start.
final class H2TestServer: @unchecked Sendable {
    let process: Process
    let port: Int
    let logPath: String
    private let stdin: FileHandle

    /// Starts the server with `arguments` and waits for the port it prints.
    init(_ arguments: [String], logPath: String) async throws {
        let script = packageRoot.appendingPathComponent("Tests/PushNotificationsTests/h2_test_server.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try venvPython())
        process.arguments = [script] + arguments
        let out = Pipe(), input = Pipe()
        FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardInput = input
        try process.runWithDefaultSignals()
        let line = await onThread { () -> String in
            var bytes: [UInt8] = []
            while let byte = try? out.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A {
                bytes.append(first)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let data = line.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let port = object["port"] as? Int else {
            process.terminate()
            let errors = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw TestFailure("h2 test server did not start: \(line) \(errors)")
        }
        self.process = process
        self.port = port
        self.logPath = logPath
        stdin = input.fileHandleForWriting
    }

    /// What the server wrote to stderr.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Closes stdin (the server exits) and waits up to five seconds.
    func stop() async {
        try? stdin.close()
        let process = process
        for _ in 0..<500 where process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning { process.terminate() }
    }
}
