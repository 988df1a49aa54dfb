import ParleyCore
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
/// Timer J needs no timer of the loop: answered transactions are kept in answer order, and Timer J
/// is the same for all, so those whose J has passed are at the front and go when the table is next used.
public final class SIPServerTransactions: Sendable {
    private struct Entry {
        var machine: NonInviteServerTransaction
        /// The latest response, as sent.
        var response: [UInt8]?
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
        /// Answered transactions and when their Timer J fires (monotonic nanoseconds), oldest
        /// first from `answeredHead` (a key whose entry went already is skipped when it comes up).
        var answered: [(key: String, deadline: Int64)] = []
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

        /// Keeps `key` until `deadline` (Timer J), forgetting the oldest answered transactions beyond `limit`.
        mutating func keepAnswered(_ key: String, until deadline: Int64, limit: Int) {
            answered.append((key, deadline))
            while answered.count - answeredHead > limit { forgetOldestAnswered() }
        }

        /// Forgets answered transactions whose Timer J has fired by `now` (§17.2.2: Terminated).
        mutating func expire(now: Int64) {
            while answeredHead < answered.count, answered[answeredHead].deadline <= now { forgetOldestAnswered() }
        }

        private mutating func forgetOldestAnswered() {
            let oldest = answered[answeredHead].key
            answeredHead += 1
            if entries[oldest]?.answered == true { entries[oldest] = nil }
            if answeredHead > 4096, answeredHead * 2 > answered.count {
                answered.removeFirst(answeredHead)
                answeredHead = 0
            }
        }
    }

    /// T1 (Timer J is 64·T1 over UDP).
    public let timers: TransactionTimerValues

    public init(transport: SIPTransport, capacity: Int = 50_000, perSource: Int = 2_000, answeredCapacity: Int = 100_000,
                timers: TransactionTimerValues = .rfc3261) {
        self.transport = transport
        self.timers = timers
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
        enum Found { case new, overloaded, absorbed, resend([UInt8]) }
        let found: Found = state.withLock { table in
            table.expire(now: SystemClock.now.nanoseconds)
            if let entry = table.entries[key] {
                guard let response = entry.response, entry.machine.receivedRequestRetransmission().contains(.transmitResponse) else {
                    return .absorbed  // still being worked on: the answer will come
                }
                return .resend(response)
            }
            let source = peer.address.ipBytes
            guard table.pending < capacity, table.pendingBySource[source, default: 0] < perSource else { return .overloaded }
            table.entries[key] = Entry(machine: NonInviteServerTransaction(reliable: peer.isReliable, timers: timers), response: nil, peer: peer)
            table.pendingBySource[source, default: 0] += 1
            table.pending += 1
            return .new
        }
        switch found {
        case .new: return .new
        case .overloaded: return .overloaded
        case .absorbed: return .retransmission
        case .resend(let response):
            transport.send(bytes: response, to: peer)
            return .retransmission
        }
    }

    /// Sends `response` to `request` through its transaction.
    public func respond(_ response: SIPResponse, to request: SIPRequest, peer: SIPPeer) {
        respond(statusCode: response.statusCode, bytes: response.serialized(), to: request, peer: peer)
    }

    /// Sends the response `bytes` (status `statusCode`, e.g. from a `SIPReplyWriter`) to `request` through its transaction.
    public func respond(statusCode: Int, bytes response: [UInt8], to request: SIPRequest, peer: SIPPeer) {
        guard let key = Self.key(request) else {
            transport.send(bytes: response, to: peer)
            return
        }
        let actions: [TransactionAction] = state.withLock { table in
            guard var entry = table.entries[key] else { return [.transmitResponse] }
            let actions = entry.machine.send(status: statusCode)
            if actions.contains(.transmitResponse) { entry.response = response }
            if actions.contains(.terminated) { table.remove(key); return actions }
            if statusCode >= 200, !entry.answered {
                entry.answered = true
                table.settle(entry.peer)
                table.entries[key] = entry
                let timerJ = actions.lazy.compactMap { if case .startTimer(.j, let seconds) = $0 { seconds } else { nil } }.first ?? 0
                table.keepAnswered(key, until: SystemClock.now.nanoseconds + Int64(timerJ * 1e9), limit: answeredCapacity)
            } else {
                table.entries[key] = entry
            }
            return actions
        }
        if actions.contains(.transmitResponse) { transport.send(bytes: response, to: peer) }
    }
}
