import ParleyNet
import SIP
import SIPWire
import Synchronization

/// INVITEs answered with a final error (486, 487, 480, 422, …): over UDP the response goes
/// again at T1, 2·T1, … capped at T2 until the ACK comes (Timer G), and is given up after 64·T1
/// (Timer H); the ACK is absorbed for T4 (Timer I). RFC 3261 §17.2.1, run by `InviteServerTransaction`.
/// Keyed by Call-ID and the INVITE's branch, so a new INVITE in the same Call-ID (after a 422)
/// is a new transaction.
extension SIPCallTable {
    struct Rejection {
        var machine: InviteServerTransaction
        let response: SIPResponse
        let peer: SIPPeer
    }

    static func rejectionKey(_ request: SIPRequest) -> String? {
        guard let callID = request.callID, let branch = request.via?.branch else { return nil }
        return callID + " " + branch
    }

    /// Sends `response` (300–699) to the INVITE `request`, and over UDP keeps sending it until its ACK.
    func reject(_ request: SIPRequest, _ response: SIPResponse, peer: SIPPeer) {
        guard !peer.isReliable, let key = Self.rejectionKey(request) else { return send(response, to: peer) }
        var machine = InviteServerTransaction(reliable: false)
        let actions = machine.send(status: response.statusCode)
        rejections.withLock { $0[key] = Rejection(machine: machine, response: response, peer: peer) }
        perform(actions, key: key, response: response, peer: peer)
    }

    /// A retransmitted INVITE of a rejected transaction: the response again. False when `request` is not one.
    func resendRejection(_ request: SIPRequest, from peer: SIPPeer) -> Bool {
        guard let key = Self.rejectionKey(request),
              let (actions, response) = rejections.withLock({ table -> ([TransactionAction], SIPResponse)? in
                  table[key].map { ($0.machine.receivedRequestRetransmission(), $0.response) }
              }) else { return false }
        perform(actions, key: key, response: response, peer: peer)
        return true
    }

    /// The ACK of a rejected INVITE (same branch, §17.1.1.3) stops its retransmissions. False when it is not one.
    func rejectionAcknowledged(_ request: SIPRequest) -> Bool {
        guard let key = Self.rejectionKey(request),
              let (actions, rejection) = rejections.withLock({ table -> ([TransactionAction], Rejection)? in
                  guard var rejection = table[key] else { return nil }
                  let actions = rejection.machine.receivedACK()
                  if actions.contains(.terminated) { table[key] = nil } else { table[key] = rejection }
                  return (actions, rejection)
              }) else { return false }
        perform(actions, key: key, response: rejection.response, peer: rejection.peer)
        return true
    }

    /// Rejected INVITEs whose transaction is still open (for tests and `/metrics`).
    var openRejections: Int { rejections.withLock { $0.count } }

    private func perform(_ actions: [TransactionAction], key: String, response: SIPResponse, peer: SIPPeer) {
        for action in actions {
            switch action {
            case .transmitResponse: send(response, to: peer)
            case .startTimer(let timer, let seconds):
                context.transport.loop.schedule(after: .milliseconds(Int(seconds * 1000))) { [self] in fire(timer, key: key) }
            default: break
            }
        }
    }

    private func fire(_ timer: TransactionTimer, key: String) {
        guard let (actions, rejection) = rejections.withLock({ table -> ([TransactionAction], Rejection)? in
            guard var rejection = table[key] else { return nil }
            let actions = rejection.machine.fired(timer)
            if actions.contains(.terminated) { table[key] = nil } else { table[key] = rejection }
            return (actions, rejection)
        }) else { return }
        perform(actions, key: key, response: rejection.response, peer: rejection.peer)
    }
}
