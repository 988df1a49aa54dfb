import HTTPWire
import JSONWire
import ParleyNet
import Synchronization

/// A driver for Janus's HTTP API (janus.conf.meetecho.com/docs/rest): one session, a handle per
/// participant, requests POSTed to `/janus/<session>/<handle>`, asynchronous plugin events (and
/// their JSEP) collected by a long poll on `/janus/<session>` and matched by transaction. The long
/// poll keeps the session alive; a `keepalive` is also sent every 15 s.
final class JanusAPI: Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    let base: String
    private let http: HTTPClient
    private let session: Int64
    private let events = Mutex<[String: JSONObject]>([:])
    private let counter = Mutex(0)
    private let stopped = Mutex(false)

    private init(base: String, http: HTTPClient, session: Int64) {
        self.base = base
        self.http = http
        self.session = session
    }

    /// Creates a session (retrying until Janus answers or `timeout`) and starts the long poll.
    static func connect(base: String, timeout: Duration = .seconds(10)) async throws -> JanusAPI {
        let http = try HTTPClient(configuration: .init(maxIdleConnectionsPerHost: 4))
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                let reply = try await post(http, base, ["janus": .string("create"), "transaction": .string("create")])
                guard let id = reply.object("data")?.janusInteger("id") else { throw Failure(description: "create: \(reply)") }
                let api = JanusAPI(base: base, http: http, session: id)
                api.startPolling()
                return api
            } catch {
                if ContinuousClock.now > deadline { http.shutdown(); throw error }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Attaches a handle to `plugin`.
    func attach(_ plugin: String = "janus.plugin.videoroom") async throws -> Int64 {
        let reply = try await Self.post(http, "\(base)/\(session)", ["janus": .string("attach"), "plugin": .string(plugin),
                                                                      "transaction": .string(transaction())])
        guard let id = reply.object("data")?.janusInteger("id") else { throw Failure(description: "attach: \(reply)") }
        return id
    }

    /// A plugin request on `handle`: the plugin's data and JSEP, whether Janus answers at once
    /// (`success`) or acknowledges and sends an `event` later.
    func message(_ handle: Int64, _ body: JSONObject, jsep: JSONObject? = nil,
                 timeout: Duration = .seconds(10)) async throws -> (data: JSONObject, jsep: JSONObject?) {
        let id = transaction()
        var request: JSONObject = ["janus": .string("message"), "transaction": .string(id), "body": .object(body)]
        if let jsep { request["jsep"] = .object(jsep) }
        var reply = try await Self.post(http, "\(base)/\(session)/\(handle)", request)
        if reply.string("janus") == "ack" {
            let deadline = ContinuousClock.now + timeout
            while true {
                if let event = events.withLock({ $0.removeValue(forKey: id) }) { reply = event; break }
                guard ContinuousClock.now < deadline else { throw Failure(description: "no event for \(body)") }
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        guard let data = reply.object("plugindata")?.object("data"), data["error"] == nil else {
            throw Failure(description: "\(body["request"]?.stringValue ?? "?"): \(reply)")
        }
        return (data, reply.object("jsep"))
    }

    /// Ends the long poll and the HTTP client (Janus itself is killed by the caller).
    func close() async {
        stopped.withLock { $0 = true }
        _ = try? await Self.post(http, "\(base)/\(session)", ["janus": .string("destroy"), "transaction": .string("destroy")])
    }

    private func transaction() -> String { counter.withLock { $0 += 1; return "t\($0)" } }

    private func startPolling() {
        let url = "\(base)/\(session)?maxev=50"
        Task { [self] in
            var lastKeepalive = ContinuousClock.now
            while !stopped.withLock({ $0 }) {
                if ContinuousClock.now - lastKeepalive > .seconds(15) {
                    lastKeepalive = .now
                    _ = try? await Self.post(http, "\(base)/\(session)",
                                             ["janus": .string("keepalive"), "transaction": .string("keepalive")])
                }
                guard let response = try? await http.get(url, timeout: .seconds(40)),
                      let value = try? JSONValue.parse(response.body) else {
                    try? await Task.sleep(for: .milliseconds(50))
                    continue
                }
                let list: [JSONValue]
                if case .array(let items) = value { list = items } else { list = [value] }
                for case .object(let event) in list {
                    guard let id = event.string("transaction"), event.string("janus") == "event" else { continue }
                    events.withLock { $0[id] = event }
                }
            }
            http.shutdown()
        }
    }

    private static func post(_ http: HTTPClient, _ url: String, _ body: JSONObject) async throws -> JSONObject {
        var request = HTTPRequest(method: "POST", body: JSONValue.object(body).serialized())
        request.headers.set("Content-Type", "application/json")
        let response = try await http.send(request, to: url, timeout: .seconds(10))
        guard case .object(let reply) = try JSONValue.parse(response.body) else {
            throw Failure(description: "POST \(url): \(response.status)")
        }
        if reply.string("janus") == "error" { throw Failure(description: "POST \(url): \(reply)") }
        return reply
    }
}

extension JSONObject {
    fileprivate func object(_ key: String) -> JSONObject? { self[key]?.objectValue }
    fileprivate func string(_ key: String) -> String? { self[key]?.stringValue }
    /// An integer member (Janus's session, handle and feed IDs).
    func janusInteger(_ key: String) -> Int64? {
        if case .integer(let n) = self[key] { return n }
        return nil
    }
}
