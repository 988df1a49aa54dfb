import ParleyNet
import SIPWire
import Synchronization

/// The non-INVITE server transactions of one transport (RFC 3261 §17.2.2), matched by the top
/// Via's branch, sent-by and method (§17.2.3): a retransmitted request gets the latest response
/// again instead of reaching the user twice, and each transaction is forgotten on Timer J.
/// Bounded: past `capacity` transactions still being worked on, or `perSource` from one address,
/// new requests are answered 503 by the caller, so one flooding address cannot take the table
/// from the others. Answered transactions waiting out Timer J (32 s over UDP) are kept up to
/// `answeredCapacity`, the oldest forgotten first: they only absorb retransmissions, and must not
/// cap how many requests a second one source may send (a proxy in front carries many users).
public final class SIPServerTransactions: Sendable {
    private struct Entry {
        var machine: NonInviteServerTransaction
        var response: SIPResponse?
        var peer: SIPPeer
        var answered = false
    }

    public let capacity: Int
    public let perSource: Int
    public let answeredCapacity: Int
    private let transport: SIPTransport
    private let state = Mutex(Table())

    private struct Table {
        var entries: [String: Entry] = [:]
        /// Transactions not answered yet, per source address.
        var pendingBySource: [[UInt8]: Int] = [:]
        var pending = 0
        /// Keys of answered transactions, oldest first from `answeredHead` (a key whose entry
        /// Timer J already removed is skipped when it comes up).
        var answered: [String] = []
        var answeredHead = 0

        mutating func remove(_ key: String) {
            guard let entry = entries.removeValue(forKey: key), !entry.answered else { return }
            settle(entry.peer)
        }

        /// One transaction of `peer` is no longer pending.
        mutating func settle(_ peer: SIPPeer) {
            let source = peer.address.ipBytes
            pending -= 1
            pendingBySource[source, default: 1] -= 1
            if pendingBySource[source] == 0 { pendingBySource[source] = nil }
        }

        /// Keeps `key` until Timer J, forgetting the oldest answered transactions beyond `limit`.
        mutating func keepAnswered(_ key: String, limit: Int) {
            answered.append(key)
            while answered.count - answeredHead > limit {
                let oldest = answered[answeredHead]
                answeredHead += 1
                if entries[oldest]?.answered == true { entries[oldest] = nil }
            }
            if answeredHead > 4096, answeredHead * 2 > answered.count {
                answered.removeFirst(answeredHead)
                answeredHead = 0
            }
        }
    }

    public init(transport: SIPTransport, capacity: Int = 50_000, perSource: Int = 2_000, answeredCapacity: Int = 100_000) {
        self.transport = transport
        self.capacity = capacity
        self.perSource = perSource
        self.answeredCapacity = answeredCapacity
    }

    public var count: Int { state.withLock { $0.entries.count } }

    /// RFC 3261 §17.2.3's key; nil for a request without an RFC 3261 branch (it is then handled
    /// without a transaction: retransmissions are processed again, which REGISTER and OPTIONS bear).
    static func key(_ request: SIPRequest) -> String? {
        guard let via = request.via, via.hasRFC3261Branch, let branch = via.branch else { return nil }
        return "\(branch) \(via.host):\(via.sentByPort) \(request.method == .ack ? "INVITE" : request.method.description)"
    }

    public enum Admission: Sendable { case new, retransmission, overloaded }

    /// A request arrived: `.new` if it starts a transaction (the caller then answers it with
    /// `respond`), `.retransmission` if it was absorbed (answered again, or still being worked on).
    public func admit(_ request: SIPRequest, from peer: SIPPeer) -> Admission {
        guard let key = Self.key(request) else { return .new }
        enum Found { case new, overloaded, absorbed, resend(SIPResponse) }
        let found: Found = state.withLock { table in
            if let entry = table.entries[key] {
                guard let response = entry.response, entry.machine.receivedRequestRetransmission().contains(.transmitResponse) else {
                    return .absorbed  // still being worked on: the answer will come
                }
                return .resend(response)
            }
            let source = peer.address.ipBytes
            guard table.pending < capacity, table.pendingBySource[source, default: 0] < perSource else { return .overloaded }
            table.entries[key] = Entry(machine: NonInviteServerTransaction(reliable: peer.isReliable), response: nil, peer: peer)
            table.pendingBySource[source, default: 0] += 1
            table.pending += 1
            return .new
        }
        switch found {
        case .new: return .new
        case .overloaded: return .overloaded
        case .absorbed: return .retransmission
        case .resend(let response):
            transport.send(.response(response), to: peer)
            return .retransmission
        }
    }

    /// Sends `response` to `request` through its transaction.
    public func respond(_ response: SIPResponse, to request: SIPRequest, peer: SIPPeer) {
        guard let key = Self.key(request) else {
            transport.send(.response(response), to: peer)
            return
        }
        let actions: [TransactionAction] = state.withLock { table in
            guard var entry = table.entries[key] else { return [.transmitResponse] }
            let actions = entry.machine.send(status: response.statusCode)
            if actions.contains(.transmitResponse) { entry.response = response }
            if actions.contains(.terminated) { table.remove(key); return actions }
            if response.statusCode >= 200, !entry.answered {
                entry.answered = true
                table.settle(entry.peer)
                table.entries[key] = entry
                table.keepAnswered(key, limit: answeredCapacity)
            } else {
                table.entries[key] = entry
            }
            return actions
        }
        for action in actions {
            switch action {
            case .transmitResponse: transport.send(.response(response), to: peer)
            case .startTimer(let timer, let seconds):
                transport.loop.schedule(after: .milliseconds(Int(seconds * 1000))) { [self] in fire(timer, key: key) }
            default: break
            }
        }
    }

    private func fire(_ timer: TransactionTimer, key: String) {
        state.withLock { table in
            guard var entry = table.entries[key] else { return }
            let actions = entry.machine.fired(timer)
            if actions.contains(.terminated) { table.remove(key) } else { table.entries[key] = entry }
        }
    }
}
