import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import Synchronization

/// The level of an Insights event (the seed's Insights tables; `POST /v1/insights`).
enum InsightsLevel: String, Sendable {
    case info, warning, error
}

/// Publishes the seed's Insights events (issue 6 §5) to the server's `POST /v1/insights`: one per
/// process (`shared`). Events are queued and sent in batches, every `flushInterval` or as soon as
/// `batchSize` are waiting, in order, one request per server and token; beyond `capacity` events
/// waiting or in flight, new ones are dropped. Best effort: failures are logged (never the token)
/// and dropped, nothing is retried, and callers never see an error. Nothing is queued while
/// `Voice.isInsightsEnabled` is false.
final class InsightsPublisher: Sendable {
    static let shared = InsightsPublisher()

    let flushInterval: Duration
    let batchSize: Int
    let capacity: Int

    /// What happened to the events so far (for tests and logs).
    struct Counters: Sendable, Equatable {
        var posted = 0
        var dropped = 0
        var failed = 0
    }

    private struct Item: Sendable {
        let server: String
        let token: String
        let event: JSONValue
    }

    private struct State {
        var queue: [Item] = []
        /// Queued plus in-flight events: what `capacity` bounds.
        var pending = 0
        var timerArmed = false
        /// The last batch's send: each send waits for the previous one, so events leave in order.
        var lastSend: Task<Void, Never>?
        var counters = Counters()
    }

    private let state = Mutex(State())

    init(flushInterval: Duration = .seconds(1), batchSize: Int = 20, capacity: Int = 1000) {
        self.flushInterval = flushInterval
        self.batchSize = batchSize
        self.capacity = capacity
    }

    var counters: Counters { state.withLock { $0.counters } }

    /// Queues one event for the server of `edge` (nil: `Voice.edge`), posted with `token`.
    /// `payload` values are strings, as the seed's event payloads are.
    func publish(group: String, name: String, level: InsightsLevel, callSid: String?, payload: [String: String],
                 token: String, edge: String? = nil) {
        let (enabled, server) = VoiceSettings.shared.withLock { settings in
            (settings.isInsightsEnabled, try? settings.serverURL(for: edge ?? settings.edge))
        }
        guard enabled else { return }
        guard let server else {
            Log.debug(.core, "insights: no server for \(group)/\(name); event dropped")
            return
        }
        var body: JSONObject = ["group": .string(group), "name": .string(name), "level": .string(level.rawValue),
                                "timestamp": .integer(Int64(Date().timeIntervalSince1970 * 1000))]
        if let callSid { body["call_sid"] = .string(callSid) }
        var members = JSONObject()
        for key in payload.keys.sorted() { members[key] = .string(payload[key] ?? "") }
        body["payload"] = .object(members)
        let item = Item(server: server, token: token, event: .object(body))

        let armTimer = state.withLock { s -> Bool in
            guard s.pending < capacity else {
                s.counters.dropped += 1
                return false
            }
            s.queue.append(item)
            s.pending += 1
            if s.queue.count >= batchSize { sendQueued(&s) }
            guard !s.timerArmed, !s.queue.isEmpty else { return false }
            s.timerArmed = true
            return true
        }
        if armTimer {
            Task.detached { [self] in
                try? await Task.sleep(for: flushInterval)
                state.withLock { s in
                    s.timerArmed = false
                    sendQueued(&s)
                }
            }
        }
    }

    /// Sends whatever is queued and waits until every send so far has finished.
    func flush() async {
        let last = state.withLock { s -> Task<Void, Never>? in
            sendQueued(&s)
            return s.lastSend
        }
        await last?.value
    }

    /// Hands the queue to a new send task chained after the previous one (under the lock, so the
    /// order of sends is the order of events).
    private func sendQueued(_ s: inout State) {
        guard !s.queue.isEmpty else { return }
        let items = s.queue
        s.queue.removeAll()
        let previous = s.lastSend
        s.lastSend = Task.detached { [self] in
            await previous?.value
            let outcome = await Self.post(items)
            state.withLock { s in
                s.pending -= items.count
                s.counters.posted += outcome.posted
                s.counters.failed += outcome.failed
                s.counters.dropped += outcome.dropped
            }
        }
    }

    /// Posts `items`, one request per (server, token) run of at most 100 events (the server's limit).
    private static func post(_ items: [Item]) async -> (posted: Int, failed: Int, dropped: Int) {
        // Turned off while these waited: they are not sent.
        guard VoiceSettings.shared.withLock({ $0.isInsightsEnabled }) else { return (0, 0, items.count) }
        var posted = 0, failed = 0
        var start = 0
        while start < items.count {
            var end = start + 1
            while end < items.count, end - start < 100, items[end].server == items[start].server,
                  items[end].token == items[start].token { end += 1 }
            let run = items[start..<end]
            if await send(run.map(\.event), server: items[start].server, token: items[start].token) {
                posted += run.count
            } else {
                failed += run.count
            }
            start = end
        }
        return (posted, failed, 0)
    }

    private static func send(_ events: [JSONValue], server: String, token: String) async -> Bool {
        let path = "/v1/insights"
        var request = HTTPRequest(method: "POST", target: path,
                                  body: JSONValue.object(["events": .array(events)]).serialized())
        request.headers.set("Authorization", "Bearer \(token)")
        request.headers.set("Content-Type", "application/json")
        do {
            let response = try await SDKHTTP.client().send(request, to: server + path, timeout: .seconds(10))
            guard (200..<300).contains(response.status) else {
                Log.warning(.core, "insights: \(server) answered \(response.status) to \(events.count) events")
                return false
            }
            return true
        } catch {
            Log.warning(.core, "insights: cannot reach \(server): \(error)")
            return false
        }
    }
}
