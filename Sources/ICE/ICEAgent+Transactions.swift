import STUN

/// One outstanding STUN request of the full agent, retransmitted until answered
/// (RFC 8489 §6.2.1; for checks RFC 8445 §14.3).
struct Transaction: Sendable {
    enum Purpose: Sendable {
        /// A connectivity check on `pairs[pair]`, sent in `role`.
        case check(pair: Int, useCandidate: Bool, role: ICERole)
        /// A consent freshness check on the selected pair (RFC 7675).
        case consent
        /// A Binding request to a STUN server for a server-reflexive candidate.
        case serverReflexive(base: ICETransportAddress, server: ICETransportAddress)
        /// A request to the TURN server of `allocations[allocation]`.
        case turn(allocation: Int, request: TURNRequest)

        var isCheck: Bool { if case .check = self { true } else { false } }
    }

    var purpose: Purpose
    /// The datagram as sent, already wrapped for a relay; retransmissions repeat it.
    var send: ICEAgentAction
    var transmissions = 1
    var rto: Duration
    var nextAt: ICEInstant
}

extension ICEAgent {
    /// A fresh transaction ID from the injected generator (RFC 8489 §5).
    mutating func newTransactionID() -> STUNTransactionID {
        STUNTransactionID(high: UInt32(truncatingIfNeeded: random.next()), low: random.next())
    }

    /// Records a transaction and returns its first transmission.
    mutating func start(_ purpose: Transaction.Purpose, id: STUNTransactionID, send: ICEAgentAction,
                        rto: Duration, now: ICEInstant) -> ICEAgentAction {
        transactions[id] = Transaction(purpose: purpose, send: send, rto: rto, nextAt: now.advanced(by: rto))
        return send
    }

    /// Retransmits due requests with a doubled RTO (capped at `maximumRTO`), and times out those
    /// sent `maxTransmissions` times (RFC 8489 §6.2.1).
    mutating func retransmit(now: ICEInstant) -> [ICEAgentAction] {
        var actions: [ICEAgentAction] = []
        let due = transactions.filter { $0.value.nextAt <= now }.sorted { $0.value.nextAt < $1.value.nextAt }
        for (id, var transaction) in due {
            guard transaction.transmissions < max(configuration.maxTransmissions, 1) else {
                transactions[id] = nil
                actions += timedOut(transaction.purpose, now: now)
                continue
            }
            transaction.transmissions += 1
            transaction.rto = min(transaction.rto * 2, max(configuration.maximumRTO, configuration.minimumRTO))
            transaction.nextAt = now.advanced(by: transaction.rto)
            transactions[id] = transaction
            stats.retransmissions += 1
            actions.append(transaction.send)
        }
        return actions
    }

    /// A request got no answer.
    mutating func timedOut(_ purpose: Transaction.Purpose, now: ICEInstant) -> [ICEAgentAction] {
        switch purpose {
        case .check(let pair, _, _):
            return checkFailed(pair: pair, now: now)
        case .consent:
            return []  // consent simply stays stale; `consentTick` fails it at 30 s
        case .serverReflexive:
            return gatheringStepDone()
        case .turn(let allocation, let request):
            return turnRequestFailed(allocation: allocation, request: request, now: now)
        }
    }

    /// Sends `bytes` from `local` to `remote`: directly from a host candidate, or wrapped for
    /// the TURN server of a relayed one (after a CreatePermission if the peer has none yet).
    mutating func route(_ bytes: [UInt8], from local: ICECandidate, to remote: ICETransportAddress,
                        now: ICEInstant) -> (setup: [ICEAgentAction], send: ICEAgentAction?) {
        guard local.type == .relay else {
            return ([], .send(bytes, from: local.address, to: remote))  // a host candidate is its own base
        }
        guard let index = allocations.firstIndex(where: { $0.relayed == local.address && $0.phase == .allocated }) else {
            return ([], nil)
        }
        let setup = ensurePermission(allocation: index, peer: remote, now: now)
        let id = newTransactionID()
        let wrapped = allocations[index].wrap(bytes, to: remote, indicationID: id)
        return (setup, .send(wrapped, from: allocations[index].base, to: allocations[index].server.address))
    }
}
