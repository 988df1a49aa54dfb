import Synchronization

/// One line of `/metrics` beyond the counters: a gauge or counter some component keeps itself.
public typealias MetricFigure = (name: String, type: String, value: Int)

/// Counters the server exposes on `GET /metrics` (Prometheus text format). Bad input is counted
/// here before it is answered, so an operator sees attacks and broken clients.
public final class ServerMetrics: Sendable {
    private let requests = Atomic<Int>(0)
    private let tokenRejections = Mutex<[Int: Int]>([:])
    private let tokensAccepted = Atomic<Int>(0)
    private let signalingConnections = Atomic<Int>(0)
    private let signalingSessions = Atomic<Int>(0)
    private let signalingErrors = Mutex<[Int: Int]>([:])
    private let activeCalls = Atomic<Int>(0)
    private let callsTotal = Atomic<Int>(0)
    private let callErrors = Mutex<[Int: Int]>([:])
    /// Gauges and counters the HTTP listener keeps itself (set once it exists).
    private let listenerFigures = Mutex<(@Sendable () -> [MetricFigure])?>(nil)

    public init() {}

    /// Where `render` reads the listener's own figures (buffered bodies, refused connections).
    package func setListenerFigures(_ figures: @escaping @Sendable () -> [MetricFigure]) {
        listenerFigures.withLock { $0 = figures }
    }

    package func countRequest() { requests.add(1, ordering: .relaxed) }
    package func countTokenAccepted() { tokensAccepted.add(1, ordering: .relaxed) }
    package func countTokenRejected(code: Int) { tokenRejections.withLock { $0[code, default: 0] += 1 } }
    package func signalingConnectionOpened() { signalingConnections.add(1, ordering: .relaxed) }
    package func signalingConnectionClosed() { signalingConnections.subtract(1, ordering: .relaxed) }
    package func signalingSessionsChanged(_ count: Int) { signalingSessions.store(count, ordering: .relaxed) }
    package func countSignalingError(code: Int) { signalingErrors.withLock { $0[code, default: 0] += 1 } }
    package func callStarted() {
        activeCalls.add(1, ordering: .relaxed)
        callsTotal.add(1, ordering: .relaxed)
    }
    package func callEnded() { activeCalls.subtract(1, ordering: .relaxed) }
    package func countCallError(code: Int) { callErrors.withLock { $0[code, default: 0] += 1 } }

    /// Rejected tokens by error code.
    public var tokenRejectionsByCode: [Int: Int] { tokenRejections.withLock { $0 } }
    /// Calls that ended (or were refused) with an error, by code.
    public var callErrorsByCode: [Int: Int] { callErrors.withLock { $0 } }
    /// Calls in progress.
    public var callsActive: Int { activeCalls.load(ordering: .relaxed) }
    /// Open signaling WebSockets.
    public var signalingConnectionsOpen: Int { signalingConnections.load(ordering: .relaxed) }

    /// The counters in Prometheus text exposition format; `extra` adds lines (media figures).
    public func render(extra: [MetricFigure] = []) -> String {
        var out = "# TYPE parley_http_requests_total counter\nparley_http_requests_total \(requests.load(ordering: .relaxed))\n"
        out += "# TYPE parley_tokens_accepted_total counter\nparley_tokens_accepted_total \(tokensAccepted.load(ordering: .relaxed))\n"
        out += "# TYPE parley_tokens_rejected_total counter\n"
        for (code, n) in tokenRejectionsByCode.sorted(by: { $0.key < $1.key }) {
            out += "parley_tokens_rejected_total{code=\"\(code)\"} \(n)\n"
        }
        out += "# TYPE parley_signaling_connections gauge\nparley_signaling_connections \(signalingConnectionsOpen)\n"
        out += "# TYPE parley_signaling_sessions gauge\nparley_signaling_sessions \(signalingSessions.load(ordering: .relaxed))\n"
        out += "# TYPE parley_signaling_errors_total counter\n"
        for (code, n) in signalingErrors.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            out += "parley_signaling_errors_total{code=\"\(code)\"} \(n)\n"
        }
        out += "# TYPE parley_calls_active gauge\nparley_calls_active \(callsActive)\n"
        out += "# TYPE parley_calls_total counter\nparley_calls_total \(callsTotal.load(ordering: .relaxed))\n"
        out += "# TYPE parley_call_errors_total counter\n"
        for (code, n) in callErrorsByCode.sorted(by: { $0.key < $1.key }) {
            out += "parley_call_errors_total{code=\"\(code)\"} \(n)\n"
        }
        for line in (listenerFigures.withLock { $0 })?() ?? [] {
            out += "# TYPE \(line.name) \(line.type)\n\(line.name) \(line.value)\n"
        }
        for line in extra {
            out += "# TYPE \(line.name) \(line.type)\n\(line.name) \(line.value)\n"
        }
        return out
    }
}
