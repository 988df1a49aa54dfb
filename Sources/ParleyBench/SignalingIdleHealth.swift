import Foundation
import HTTPWire
import ParleyNet

/// `/healthz` and `/metrics` of the `parley-server` child, for `parley-bench signaling-idle`.
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
        guard let response = await get("/healthz", port: port) else { return (0, (clock.now - start).seconds) }
        return (response.status, (clock.now - start).seconds)
    }

    /// The first `/metrics` line starting with `prefix`.
    static func metricLine(port: Int, _ prefix: String) async -> String {
        guard let response = await get("/metrics", port: port) else { return "unavailable" }
        return response.bodyText.split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init) ?? "no \(prefix)"
    }

    private static func get(_ path: String, port: Int) async -> HTTPResponse? {
        guard let client = try? HTTPClient() else { return nil }
        let request = HTTPRequest(method: "GET", target: path, headers: ["Host": "127.0.0.1:\(port)"])
        return try? await client.send(request, to: "http://127.0.0.1:\(port)\(path)", timeout: .seconds(10))
    }
}
