import Synchronization

/// Counters the server exposes on `GET /metrics` (Prometheus text format). Bad input is counted
/// here before it is answered, so an operator sees attacks and broken clients.
public final class ServerMetrics: Sendable {
    private let requests = Atomic<Int>(0)
    private let tokenRejections = Mutex<[Int: Int]>([:])
    private let tokensAccepted = Atomic<Int>(0)

    public init() {}

    func countRequest() { requests.add(1, ordering: .relaxed) }
    func countTokenAccepted() { tokensAccepted.add(1, ordering: .relaxed) }
    func countTokenRejected(code: Int) { tokenRejections.withLock { $0[code, default: 0] += 1 } }

    /// Rejected tokens by error code.
    public var tokenRejectionsByCode: [Int: Int] { tokenRejections.withLock { $0 } }

    /// The counters in Prometheus text exposition format.
    public func render() -> String {
        var out = "# TYPE parley_http_requests_total counter\nparley_http_requests_total \(requests.load(ordering: .relaxed))\n"
        out += "# TYPE parley_tokens_accepted_total counter\nparley_tokens_accepted_total \(tokensAccepted.load(ordering: .relaxed))\n"
        out += "# TYPE parley_tokens_rejected_total counter\n"
        for (code, n) in tokenRejectionsByCode.sorted(by: { $0.key < $1.key }) {
            out += "parley_tokens_rejected_total{code=\"\(code)\"} \(n)\n"
        }
        return out
    }
}
