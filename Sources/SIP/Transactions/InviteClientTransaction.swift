/// The INVITE client transaction of RFC 3261 §17.1.1 (figure 5) with RFC 6026 §8.4's Accepted
/// state: a 2xx ends the transaction's retransmissions but keeps it for 64·T1 so that 2xx
/// retransmissions (from forking, or a lost ACK) still reach the transaction user.
public struct InviteClientTransaction: Sendable, Hashable {
    public enum State: Sendable, Hashable { case calling, proceeding, completed, accepted, terminated }

    public private(set) var state = State.calling
    public let reliable: Bool
    public let timers: TransactionTimerValues
    private var retransmitInterval: Double

    /// A transaction over a reliable transport (TCP, TLS, WebSocket) does not retransmit.
    public init(reliable: Bool, timers: TransactionTimerValues = .rfc3261) {
        self.reliable = reliable
        self.timers = timers
        retransmitInterval = timers.t1
    }

    /// Sends the INVITE: the first actions of the transaction.
    public func start() -> [TransactionAction] {
        (reliable ? [.transmitRequest] : [.transmitRequest, .startTimer(.a, seconds: timers.t1)])
            + [.startTimer(.b, seconds: timers.timeout)]
    }

    /// A response with `status` matched this transaction (§17.1.3).
    public mutating func received(status: Int) -> [TransactionAction] {
        switch (state, status) {
        case (.calling, 100...199), (.proceeding, 100...199):
            state = .proceeding
            return [.deliverResponse]
        case (.calling, 200...299), (.proceeding, 200...299):
            state = .accepted
            return [.deliverResponse, .startTimer(.m, seconds: timers.timeout)]
        case (.accepted, 200...299):
            return [.deliverResponse]
        case (.calling, 300...699), (.proceeding, 300...699):
            state = .completed
            // Timer D: "at least 32 seconds" for unreliable transports, zero for reliable ones.
            if reliable {
                state = .terminated
                return [.transmitACK, .deliverResponse, .terminated]
            }
            return [.transmitACK, .deliverResponse, .startTimer(.d, seconds: 32)]
        case (.completed, 300...699):
            return [.transmitACK]  // a retransmission: ACK again, not passed up
        default:
            return []
        }
    }

    public mutating func fired(_ timer: TransactionTimer) -> [TransactionAction] {
        switch (state, timer) {
        case (.calling, .a):
            retransmitInterval *= 2
            return [.transmitRequest, .startTimer(.a, seconds: retransmitInterval)]
        case (.calling, .b):
            state = .terminated
            return [.timedOut, .terminated]
        case (.completed, .d), (.accepted, .m):
            state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    /// The transport failed to send (§17.1.4).
    public mutating func transportFailed() -> [TransactionAction] {
        guard state == .calling || state == .proceeding else { return [] }
        state = .terminated
        return [.transportFailed, .terminated]
    }
}
