import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import Synchronization

/// The level of an Insights event (the seed's Insights tables; `POST /v1/insights`).
package enum InsightsLevel: String, Sendable {
    case info, warning, error
}

/// Publishes Insights events (issue 6 §5) to the server's `POST /v1/insights`; each SDK keeps one,
/// reading its `ClientSettings` for the server and the on/off switch. Events are queued and sent
/// in batches, every `flushInterval` or as soon as `batchSize` are waiting, in order, one request
/// per server and token; beyond `capacity` events waiting or in flight, new ones are dropped. Best
/// effort: failures are logged (never the token) and dropped, nothing is retried, and callers
/// never see an error. Nothing is queued while `settings.isInsightsEnabled` is false.
package final class InsightsPublisher: Sendable {
    package let settings: ClientSettings
    package let flushInterval: Duration
    package let batchSize: Int
    package let capacity: Int

    /// What happened to the events so far (for tests and logs).
    package struct Counters: Sendable, Equatable {
        package var posted = 0
        package var dropped = 0
        package var failed = 0

        package init(posted: Int = 0, dropped: Int = 0, failed: Int = 0) {
            self.posted = posted
            self.dropped = dropped
            self.failed = failed
        }
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

    /// The time source of the flush timer.
    private let clock: any MonotonicClock

    package init(settings: ClientSettings, flushInterval: Duration = .seconds(1), batchSize: Int = 20,
                 capacity: Int = 1000, clock: any MonotonicClock = SystemClock()) {
        self.clock = clock
        self.settings = settings
        self.flushInterval = flushInterval
        self.batchSize = batchSize
        self.capacity = capacity
    }

    package var counters: Counters { state.withLock { $0.counters } }

    /// Queues one event for the server of `edge` (nil: the settings' edge), posted with `token`.
    /// `payload` values are strings, as the seed's event payloads are; `subject` adds top-level
    /// members naming what the event is about (the voice SDK's `call_sid`).
    package func publish(group: String, name: String, level: InsightsLevel, subject: [String: String] = [:],
                         payload: [String: String], token: String, edge: String? = nil) {
        guard settings.isInsightsEnabled else { return }
        guard let server = try? settings.server(for: edge) else {
            Log.debug(.core, "insights: no server for \(group)/\(name); event dropped")
            return
        }
        var body: JSONObject = ["group": .string(group), "name": .string(name), "level": .string(level.rawValue),
                                "timestamp": .integer(Int64(Date().timeIntervalSince1970 * 1000))]
        for key in subject.keys.sorted() { body[key] = .string(subject[key] ?? "") }
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
            clock.schedule(after: flushInterval) { [self] in
                state.withLock { s in
                    s.timerArmed = false
                    sendQueued(&s)
                }
            }
        }
    }

    /// Sends whatever is queued and waits until every send so far has finished.
    package func flush() async {
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
            let outcome = await post(items)
            state.withLock { s in
                s.pending -= items.count
                s.counters.posted += outcome.posted
                s.counters.failed += outcome.failed
                s.counters.dropped += outcome.dropped
            }
        }
    }

    /// Posts `items`, one request per (server, token) run of at most 100 events (the server's limit).
    private func post(_ items: [Item]) async -> (posted: Int, failed: Int, dropped: Int) {
        // Turned off while these waited: they are not sent.
        guard settings.isInsightsEnabled else { return (0, 0, items.count) }
        var posted = 0, failed = 0
        var start = 0
        while start < items.count {
            var end = start + 1
            while end < items.count, end - start < 100, items[end].server == items[start].server,
                  items[end].token == items[start].token { end += 1 }
            let run = items[start..<end]
            if await Self.send(run.map(\.event), server: items[start].server, token: items[start].token) {
                posted += run.count
            } else {
                failed += run.count
            }
            start = end
        }
        return (posted, failed, 0)
    }

    private static func send(_ events: [JSONValue], server: String, token: String) async -> Bool {
        let request = HTTPRequest(method: "POST", target: "/v1/insights",
                                  body: JSONValue.object(["events": .array(events)]).serialized())
        do throws(ParleyError) {
            let response = try await ClientHTTP.send(request, to: server, token: token, timeout: .seconds(10))
            guard (200..<300).contains(response.status) else {
                Log.warning(.core, "insights: \(server) answered \(response.status) to \(events.count) events")
                return false
            }
            return true
        } catch {
            Log.warning(.core, "insights: \(error.failureReason ?? error.code.text)")
            return false
        }
    }
}
