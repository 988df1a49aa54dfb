import Foundation
import Glibc
import ParleyCore

/// `/healthz` and `/metrics` of the server under test, for `parley-bench signaling-idle`, over a
/// plain blocking socket (`Connection: close`), so that the time measured is the server's answer
/// and not a client library's setup.
extension SignalingIdleBench {
    /// Polls `/healthz` until it answers 200 (up to 10 s).
    static func waitForHealth(port: Int) async -> Bool {
        for _ in 0..<100 {
            if await timedHealth(port: port).status == 200 { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// One `GET /healthz` on a new connection: status (0 on failure) and time taken.
    static func timedHealth(port: Int) async -> (status: Int, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let response = get("/healthz", port: port)
        return (response?.status ?? 0, (clock.now - start).seconds)
    }

    /// The first `/metrics` line starting with `prefix`.
    static func metricLine(port: Int, _ prefix: String) async -> String {
        guard let response = get("/metrics", port: port) else { return "unavailable" }
        return response.body.split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init) ?? "no \(prefix)"
    }

    private static func get(_ path: String, port: Int) -> (status: Int, body: String)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var remote = SignalingIdleClient.address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while data.count < 4 << 20 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data.append(contentsOf: chunk[0..<n])
        }
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else { return nil }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }
}
