import AccessToken
import Foundation
import HTTPWire
import ParleyCore
import ParleyNet
import ParleyOpus
import ParleyServer
import ParleyStore
import ParleyTestSupport
import WebRTC

/// Shared by the client-side interop tests: an in-process echo server, a tone as Opus frames,
/// frequency analysis, and a child process with bounded waits.
enum ClientInterop {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func startEchoServer() throws -> (PlatformServer, String) {
        let server = try EchoInteropTests.startServer()
        return (server, try EchoInteropTests.token(server))
    }

    /// POSTs the offer to `/v1/echo`; returns the SDP answer.
    static func postOffer(_ offer: String, server: PlatformServer, token: String) async throws -> String {
        let http = try HTTPClient()
        defer { http.shutdown() }
        let response = try await http.send(
            HTTPRequest(method: "POST", target: "/v1/echo",
                        headers: ["Host": "127.0.0.1", "Authorization": "Bearer \(token)", "Content-Type": "application/sdp"],
                        body: Array(offer.utf8)), to: "http://127.0.0.1:\(server.port)/v1/echo")
        guard response.status == 201 else {
            throw Failure(description: "POST /v1/echo: \(response.status) \(response.bodyText)")
        }
        return response.bodyText
    }

    /// Sends a sine tone as 20 ms Opus frames, paced in real time.
    static func sendTone(_ pc: PeerConnection, frequency: Double, seconds: Double) async throws {
        try await ToneAudio.send(pc, frequency: frequency, seconds: seconds)
    }

    /// The dominant frequency of one second of the decoded frames, after the first 200 ms.
    static func dominantFrequency(ofOpus frames: [[UInt8]]) throws -> Double {
        try ToneAudio.dominantFrequency(ofOpus: frames, analysisSeconds: 1)
    }

    /// Collects received payloads until the stream ends (on `close()`).
    static func collect(_ pc: PeerConnection) -> Task<[[UInt8]], Never> {
        Task {
            var frames: [[UInt8]] = []
            for await frame in pc.audio { frames.append(frame.payload) }
            return frames
        }
    }
}

/// A child process (Python script or daemon) whose stdout/stderr go to files, stopped by PID.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL

    /// `input`, when given, is the child's standard input (a pipe the test writes commands to).
    init(executable: String, arguments: [String], stdin: String? = nil, input: FileHandle? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ClientInterop.Failure(description: "\(executable) is missing (run scripts/install-deps)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        stdoutURL = dir.appendingPathComponent("stdout")
        stderrURL = dir.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let input {
            process.standardInput = input
        } else if let stdin {
            let input = dir.appendingPathComponent("stdin")
            try stdin.write(to: input, atomically: true, encoding: .utf8)
            process.standardInput = try FileHandle(forReadingFrom: input)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.runWithDefaultSignals()
    }

    var isRunning: Bool { process.isRunning }
    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// JSON objects printed on stdout so far, one per line.
    var jsonLines: [[String: Any]] {
        stdout.split(separator: "\n").compactMap { line in
            line.data(using: .utf8).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
    }

    /// Waits up to `timeout` for a JSON line with `key`.
    func waitForJSON(key: String, timeout: Duration) async -> [String: Any]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = jsonLines.first(where: { $0[key] != nil }) { return line }
            if !process.isRunning { return jsonLines.first(where: { $0[key] != nil }) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Waits up to `timeout` for stdout to contain `text`.
    func waitForOutput(_ text: String, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if stdout.contains(text) { return true }
            if !process.isRunning { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    func wait(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        guard process.isRunning else { return true }
        kill()
        return false
    }

    /// SIGTERM to this PID, then SIGKILL after 2 s.
    func kill() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(2)
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }
}
