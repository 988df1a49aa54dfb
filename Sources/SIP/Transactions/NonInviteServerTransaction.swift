/// The non-INVITE server transaction of RFC 3261 §17.2.2 (figure 8).
public struct NonInviteServerTransaction: Sendable, Hashable {
    public enum State: Sendable, Hashable { case trying, proceeding, completed, terminated }

    public private(set) var state = State.trying
    public let reliable: Bool
    public let timers: TransactionTimerValues

    public init(reliable: Bool, timers: TransactionTimerValues = .rfc3261) {
        self.reliable = reliable
        self.timers = timers
    }

    /// The request was received again: the latest response goes out again, if there is one.
    public func receivedRequestRetransmission() -> [TransactionAction] {
        state == .proceeding || state == .completed ? [.transmitResponse] : []
    }

    public mutating func send(status: Int) -> [TransactionAction] {
        switch (state, status) {
        case (.trying, 100...199), (.proceeding, 100...199):
            state = .proceeding
            return [.transmitResponse]
        case (.trying, 200...699), (.proceeding, 200...699):
            if reliable {
                state = .terminated
                return [.transmitResponse, .terminated]
            }
            state = .completed
            return [.transmitResponse, .startTimer(.j, seconds: timers.timeout)]
        default:
            return []
        }
    }

    public mutating func fired(_ timer: TransactionTimer) -> [TransactionAction] {
        guard state == .completed, timer == .j else { return [] }
        state = .terminated
        return [.terminated]
    }

    public mutating func transportFailed() -> [TransactionAction] {
        guard state != .terminated else { return [] }
        state = .terminated
        return [.transportFailed, .terminated]
    }
}
