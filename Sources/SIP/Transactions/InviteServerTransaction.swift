/// The INVITE server transaction of RFC 3261 §17.2.1 (figure 7) with RFC 6026 §8.5–8.7's Accepted
/// state: a 2xx from the transaction user moves it to Accepted, where the user (not the
/// transaction) retransmits the 2xx, INVITE retransmissions are absorbed and ACKs are passed up.
public struct InviteServerTransaction: Sendable, Hashable {
    public enum State: Sendable, Hashable { case proceeding, completed, confirmed, accepted, terminated }

    public private(set) var state = State.proceeding
    public let reliable: Bool
    public let timers: TransactionTimerValues
    private var retransmitInterval: Double
    private var hasProvisional = false

    public init(reliable: Bool, timers: TransactionTimerValues = .rfc3261) {
        self.reliable = reliable
        self.timers = timers
        retransmitInterval = timers.t1
    }

    /// The INVITE arrived: a 100 Trying goes out at once (§17.2.1 allows waiting 200 ms for the
    /// user's own provisional; answering at once stops the client's retransmissions sooner).
    public mutating func start() -> [TransactionAction] {
        hasProvisional = true
        return [.transmitTrying]
    }

    /// The INVITE was received again.
    public func receivedRequestRetransmission() -> [TransactionAction] {
        switch state {
        case .proceeding: hasProvisional ? [.transmitResponse] : []
        case .completed: [.transmitResponse]
        default: []
        }
    }

    /// An ACK matched this transaction (a non-2xx's ACK, §17.2.3; or, in Accepted, a 2xx's).
    public mutating func receivedACK() -> [TransactionAction] {
        switch state {
        case .completed:
            if reliable {
                state = .terminated
                return [.terminated]
            }
            state = .confirmed
            return [.startTimer(.i, seconds: timers.t4)]
        case .accepted:
            return [.deliverACK]
        default:
            return []
        }
    }

    /// The transaction user sends a response with `status` (also a 2xx retransmission in Accepted).
    public mutating func send(status: Int) -> [TransactionAction] {
        switch (state, status) {
        case (.proceeding, 100...199):
            hasProvisional = true
            return [.transmitResponse]
        case (.proceeding, 200...299):
            state = .accepted
            return [.transmitResponse, .startTimer(.l, seconds: timers.timeout)]
        case (.accepted, 200...299):
            return [.transmitResponse]
        case (.proceeding, 300...699):
            state = .completed
            return (reliable ? [.transmitResponse] : [.transmitResponse, .startTimer(.g, seconds: timers.t1)])
                + [.startTimer(.h, seconds: timers.timeout)]
        default:
            return []
        }
    }

    public mutating func fired(_ timer: TransactionTimer) -> [TransactionAction] {
        switch (state, timer) {
        case (.completed, .g):
            retransmitInterval = min(retransmitInterval * 2, timers.t2)
            return [.transmitResponse, .startTimer(.g, seconds: retransmitInterval)]
        case (.completed, .h):
            state = .terminated
            return [.timedOut, .terminated]
        case (.confirmed, .i), (.accepted, .l):
            state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    public mutating func transportFailed() -> [TransactionAction] {
        guard state == .proceeding || state == .completed || state == .accepted else { return [] }
        state = .terminated
        return [.transportFailed, .terminated]
    }
}
