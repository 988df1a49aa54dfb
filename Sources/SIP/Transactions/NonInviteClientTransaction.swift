/// The non-INVITE client transaction of RFC 3261 §17.1.2 (figure 6): REGISTER, OPTIONS, BYE,
/// CANCEL, INFO, MESSAGE….
public struct NonInviteClientTransaction: Sendable, Hashable {
    public enum State: Sendable, Hashable { case trying, proceeding, completed, terminated }

    public private(set) var state = State.trying
    public let reliable: Bool
    public let timers: TransactionTimerValues
    private var retransmitInterval: Double

    public init(reliable: Bool, timers: TransactionTimerValues = .rfc3261) {
        self.reliable = reliable
        self.timers = timers
        retransmitInterval = timers.t1
    }

    public func start() -> [TransactionAction] {
        (reliable ? [.transmitRequest] : [.transmitRequest, .startTimer(.e, seconds: timers.t1)])
            + [.startTimer(.f, seconds: timers.timeout)]
    }

    public mutating func received(status: Int) -> [TransactionAction] {
        switch (state, status) {
        case (.trying, 100...199), (.proceeding, 100...199):
            state = .proceeding
            return [.deliverResponse]
        case (.trying, 200...699), (.proceeding, 200...699):
            if reliable {
                state = .terminated
                return [.deliverResponse, .terminated]
            }
            state = .completed
            return [.deliverResponse, .startTimer(.k, seconds: timers.t4)]
        default:
            return []  // retransmissions in Completed are absorbed
        }
    }

    public mutating func fired(_ timer: TransactionTimer) -> [TransactionAction] {
        switch (state, timer) {
        case (.trying, .e):
            retransmitInterval = min(retransmitInterval * 2, timers.t2)
            return [.transmitRequest, .startTimer(.e, seconds: retransmitInterval)]
        case (.proceeding, .e):
            // §17.1.2.2: in Proceeding the request is resent every T2.
            return [.transmitRequest, .startTimer(.e, seconds: timers.t2)]
        case (.trying, .f), (.proceeding, .f):
            state = .terminated
            return [.timedOut, .terminated]
        case (.completed, .k):
            state = .terminated
            return [.terminated]
        default:
            return []
        }
    }

    public mutating func transportFailed() -> [TransactionAction] {
        guard state == .trying || state == .proceeding else { return [] }
        state = .terminated
        return [.transportFailed, .terminated]
    }
}
