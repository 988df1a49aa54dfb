import ParleyNet
import SIPWire
import Synchronization

/// The non-INVITE server transactions of one transport (RFC 3261 §17.2.2), matched by the top
/// Via's branch, sent-by and method (§17.2.3): a retransmitted request gets the latest response
/// again instead of reaching the user twice, and each transaction is forgotten on Timer J.
/// Bounded: past `capacity` live transactions, or `perSource` from one address, new requests are
/// answered 503 by the caller, so one flooding address cannot take the table from the others.
public final class SIPServerTransactions: Sendable {
    private struct Entry {
        var machine: NonInviteServerTransaction
        var response: SIPResponse?
        var peer: SIPPeer
    }

    public let capacity: Int
    public let perSource: Int
    private let transport: SIPTransport
    private let state = Mutex(Table())

    private struct Table {
        var entries: [String: Entry] = [:]
        var bySource: [[UInt8]: Int] = [:]

        mutating func remove(_ key: String) {
            guard let entry = entries.removeValue(forKey: key) else { return }
            let source = entry.peer.address.ipBytes
            bySource[source, default: 1] -= 1
            if bySource[source] == 0 { bySource[source] = nil }
        }
    }

    public init(transport: SIPTransport, capacity: Int = 50_000, perSource: Int = 2_000) {
        self.transport = transport
        self.capacity = capacity
        self.perSource = perSource
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
            guard table.entries.count < capacity, table.bySource[source, default: 0] < perSource else { return .overloaded }
            table.entries[key] = Entry(machine: NonInviteServerTransaction(reliable: peer.isReliable), response: nil, peer: peer)
            table.bySource[source, default: 0] += 1
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
            if actions.contains(.terminated) { table.remove(key) } else { table.entries[key] = entry }
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
