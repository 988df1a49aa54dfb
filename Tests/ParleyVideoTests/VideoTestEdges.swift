import Foundation
import HTTPWire
import ParleyNet
import ParleyStore
import ParleyServer
import ParleyTestSupport
@testable import ParleyVideo

extension InProcessPlatform {
    /// Registers this server under an edge name of its own (`Video.servers` is process-wide, and
    /// suites run side by side), for `ConnectOptions.edge`.
    var videoEdge: String {
        let edge = "test-\(server.port)"
        Video.servers[edge] = baseURL
        return edge
    }
}

extension InProcessPlatform {
    /// `POST path` (the Video REST API, e.g. `/v1/Rooms`) with Basic auth (the server's default
    /// API key); the JSON body.
    func restPost(_ path: String, form: [(String, String)]) async throws -> [String: Any] {
        Self.object(try await request("POST", path, form: form))
    }

    /// `GET path` (the Video REST API) with Basic auth; the JSON body.
    func restGet(_ path: String) async throws -> [String: Any] {
        Self.object(try await request("GET", path))
    }

    private static func object(_ body: [UInt8]) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:]
    }

    /// A counter of the server's `/metrics` (Prometheus text), nil when absent.
    func metric(_ name: String) async throws -> Double? {
        let body = try await request("GET", "/metrics")
        for line in String(decoding: body, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// `method path` with Basic auth and an optional form body; the response body.
    private func request(_ method: String, _ path: String, form: [(String, String)] = []) async throws -> [UInt8] {
        let client = try HTTPClient()
        defer { client.shutdown() }
        let key = server.defaultCredentials.apiKey
        var request = HTTPRequest(method: method, target: path)
        request.headers.set("Authorization", "Basic " + Data("\(key.sid):\(key.secret)".utf8).base64EncodedString())
        if !form.isEmpty {
            request.headers.set("Content-Type", "application/x-www-form-urlencoded")
            request.body = Array(FormURLEncoding.encode(form).utf8)
        }
        return try await client.send(request, to: baseURL + path, timeout: .seconds(10)).body
    }
}

/// The tone in received audio: the median of the dominant frequency of eight 0.25 s windows over
/// its last 2 s, so one concealed or late frame on a loaded machine does not decide.
func heardFrequency(_ samples: [Int16]) -> Double {
    let window = 12_000
    let tail = Array(samples.suffix(8 * window))
    var frequencies: [Double] = []
    var start = 0
    while start + window <= tail.count {
        frequencies.append(ToneAudio.dominantFrequency(tail[start..<(start + window)].map { Double($0) / 32_768 }))
        start += window
    }
    return frequencies.sorted()[frequencies.count / 2]
}
