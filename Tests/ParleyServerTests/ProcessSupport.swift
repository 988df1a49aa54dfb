import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// Runs the package's own executables (`parley-server`, `parley`) as real processes.
enum Executables {
    static func url(_ name: String) throws -> URL { URL(fileURLWithPath: try BuiltProducts.path(name)) }

    /// Runs `name args…` to completion; returns exit status, stdout and stderr.
    @discardableResult
    static func run(_ name: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> (status: Int32, stdout: String, stderr: String) {
        try Tool.run(try url(name).path, arguments, environment: environment)
    }
}

/// Runs a program from the system (curl, openssl) to completion.
enum Tool {
    static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> (status: Int32, stdout: String, stderr: String) {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure("\(path) is missing: run scripts/install-deps")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.runWithDefaultSignals()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}
