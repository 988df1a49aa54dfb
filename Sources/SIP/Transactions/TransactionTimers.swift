/// The timers of RFC 3261 §17 (table 4 in Appendix A) and RFC 6026 §8.4/§8.7 (L, M).
public enum TransactionTimer: String, Sendable, Hashable, CaseIterable {
    /// INVITE client: request retransmission (unreliable transports), from T1, doubling.
    case a = "A"
    /// INVITE client: transaction timeout, 64·T1.
    case b = "B"
    /// INVITE client: wait for response retransmissions, ≥ 32 s unreliable, 0 reliable.
    case d = "D"
    /// Non-INVITE client: request retransmission, from T1 doubling to T2.
    case e = "E"
    /// Non-INVITE client: transaction timeout, 64·T1.
    case f = "F"
    /// INVITE server: final response retransmission, from T1 doubling to T2.
    case g = "G"
    /// INVITE server: wait for ACK, 64·T1.
    case h = "H"
    /// INVITE server: absorb ACK retransmissions, T4 unreliable, 0 reliable.
    case i = "I"
    /// Non-INVITE server: absorb request retransmissions, 64·T1 unreliable, 0 reliable.
    case j = "J"
    /// Non-INVITE client: absorb response retransmissions, T4 unreliable, 0 reliable.
    case k = "K"
    /// INVITE server, Accepted state: absorb INVITE retransmissions, pass ACKs up; 64·T1 (RFC 6026 §8.7).
    case l = "L"
    /// INVITE client, Accepted state: pass 2xx retransmissions up; 64·T1 (RFC 6026 §8.4).
    case m = "M"
}

/// T1 (RTT estimate), T2 (maximum retransmit interval for non-INVITE requests and INVITE
/// responses) and T4 (how long a message may stay in the network), RFC 3261 §17.1.1.1, in seconds.
public struct TransactionTimerValues: Sendable, Hashable {
    public var t1: Double
    public var t2: Double
    public var t4: Double

    /// RFC 3261's defaults: 500 ms, 4 s, 5 s.
    public static let rfc3261 = TransactionTimerValues(t1: 0.5, t2: 4, t4: 5)

    public init(t1: Double, t2: Double, t4: Double) {
        self.t1 = t1
        self.t2 = t2
        self.t4 = t4
    }

    /// 64·T1: timers B, F, H, J (unreliable), L and M.
    public var timeout: Double { 64 * t1 }
}

/// What a transaction asks of its owner, which holds the messages and the sockets: the state
/// machines decide, the owner sends and schedules (RFC 3261 §17; a timer the owner fires in a state
/// that no longer wants it is ignored, so it never needs to cancel one).
public enum TransactionAction: Sendable, Hashable {
    /// Client: send (or resend) the request.
    case transmitRequest
    /// INVITE client: send the ACK for the non-2xx final response just received (§17.1.1.3).
    case transmitACK
    /// Server: send (or resend) the latest response the transaction user gave.
    case transmitResponse
    /// INVITE server: send a 100 Trying (§17.2.1).
    case transmitTrying
    /// Client: hand the response to the transaction user.
    case deliverResponse
    /// INVITE server, Accepted state: hand the ACK for a 2xx to the transaction user (RFC 6026 §8.7).
    case deliverACK
    /// The transaction timed out (timers B, F, H): the user treats it as a 408 (§8.1.3.1) or a lost ACK.
    case timedOut
    /// The transport reported a failure (§17.1.4, §17.2.4).
    case transportFailed
    /// Schedule `timer` to fire after `seconds`.
    case startTimer(TransactionTimer, seconds: Double)
    /// The transaction is over: the owner forgets it.
    case terminated
}
