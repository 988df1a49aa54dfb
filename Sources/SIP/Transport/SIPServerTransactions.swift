import ParleyNet
import SIPWire
import Synchronization

/// The non-INVITE server transactions of one transport (RFC 3261 §17.2.2), matched by the top
/// Via's branch, sent-by and method (§17.2.3): a retransmitted request gets the latest response
/// again instead of reaching the user twice, and each transaction is forgotten on Timer J.
/// Bounded: past `capacity` live transactions new requests are answered 503 by the caller.
public final class SIPServerTransactions: Sendable {
    private struct Entry {
        var machine: NonInviteServerTransaction
        var response: SIPResponse?
        var peer: SIPPeer
    }

    public let capacity: Int
    private let transport: SIPTransport
    private let entries = Mutex([String: Entry]())

    public init(transport: SIPTransport, capacity: Int = 50_000) {
        self.transport = transport
        self.capacity = capacity
    }

    public var count: Int { entries.withLock { $0.count } }

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
        let found: Found = entries.withLock { entries in
            if let entry = entries[key] {
                guard let response = entry.response, entry.machine.receivedRequestRetransmission().contains(.transmitResponse) else {
                    return .absorbed  // still being worked on: the answer will come
                }
                return .resend(response)
            }
            guard entries.count < capacity else { return .overloaded }
            entries[key] = Entry(machine: NonInviteServerTransaction(reliable: peer.isReliable), response: nil, peer: peer)
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
        let actions: [TransactionAction] = entries.withLock { entries in
            guard var entry = entries[key] else { return [.transmitResponse] }
            let actions = entry.machine.send(status: response.statusCode)
            if actions.contains(.transmitResponse) { entry.response = response }
            entries[key] = actions.contains(.terminated) ? nil : entry
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
        entries.withLock { entries in
            guard var entry = entries[key] else { return }
            let actions = entry.machine.fired(timer)
            entries[key] = actions.contains(.terminated) ? nil : entry
        }
    }
}
