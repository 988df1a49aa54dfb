import ParleyCore
import ParleyStore
import PlatformCore
import Signaling

/// A client's answer to an invite `ClientDialRoute` rang: `accept` or `reject` over signaling, for
/// a `<Dial><Client>` leg or a REST-created call. The checks and the session's bookkeeping are the
/// client's; what the answer does to the call is the engine's (`answerChild`, `answerOutbound`,
/// `legRefused`).
extension VoiceService {
    /// `accept` from a callee's client: it takes the call if it is still ringing.
    func acceptInvitation(_ accept: Accept, session: SignalingSession, ref: String?) {
        if let call = calls[accept.callSid], call.parent.record.direction == "outbound-api" {
            return acceptOutbound(call, accept: accept, session: session, ref: ref)
        }
        guard let parentSid = legIndex[accept.callSid], let call = calls[parentSid], let dial = call.dial,
              let leg = dial.child(accept.callSid), let client = leg.client, client.identity == session.identity,
              leg.record.accountSid == session.accountSid else {
            return sendError(ParleyError(.callDoesNotExist, reason: "no ringing call \(accept.callSid) for \(session.identity)"),
                             to: session, ref: ref)
        }
        guard dial.bridged == nil, leg.isLive else {
            return sendError(ParleyError(.callCancelled, reason: "the call was answered elsewhere or ended"), to: session, ref: ref)
        }
        guard let lease = mediaLease(for: session, ref: ref) else { return }
        bind(client, leg: leg, to: session)
        answerChild(call, leg, offer: accept.sdp, lease: lease) {
            session.send(.connected(CallReference(callSid: leg.sid)), ref: ref)
        }
    }

    private func acceptOutbound(_ call: VoiceCall, accept: Accept, session: SignalingSession, ref: String?) {
        let leg = call.parent
        guard call.outbound != nil, let client = leg.client, client.identity == session.identity,
              leg.record.accountSid == session.accountSid else {
            return sendError(ParleyError(.callCancelled, reason: "the call was answered elsewhere or ended"), to: session, ref: ref)
        }
        guard let lease = mediaLease(for: session, ref: ref) else { return }
        bind(client, leg: leg, to: session)
        answerOutbound(call, offer: accept.sdp, lease: lease) {
            session.send(.connected(CallReference(callSid: leg.sid)), ref: ref)
        }
    }

    /// The accepting session's media-session quota unit; nil (the error sent) over quota, when
    /// the call rings on for the identity's other devices.
    private func mediaLease(for session: SignalingSession, ref: String?) -> QuotaLease? {
        do throws(ParleyError) {
            return try quotas.acquire(.mediaSession, for: session.quotaOwner)
        } catch {
            sendError(error, to: session, ref: ref)
            return nil
        }
    }

    /// `session` speaks for `leg` from now on; it is no longer only alerted.
    private func bind(_ client: ClientLegEndpoint, leg: CallLeg, to session: SignalingSession) {
        client.invitedSessions.remove(session.id)
        client.sessionID = session.id
        session.callSids.insert(leg.sid)
    }

    /// `reject` from a callee: the leg ends busy (31486) or declined (31603).
    func rejectInvitation(_ reject: Reject, session: SignalingSession, ref: String?) {
        let busy = reject.reason == .busy
        let status: CallStatus = busy ? .busy : .failed
        let error = busy ? ParleyError(.busyHere, reason: "\(session.identity) is busy")
            : ParleyError(.decline, reason: "\(session.identity) rejected the call")
        let ringing: (VoiceCall, CallLeg, ClientLegEndpoint)?
        if let call = calls[reject.callSid], call.parent.record.direction == "outbound-api" {
            let client = call.parent.client
            ringing = call.outbound != nil && client?.invitedSessions.contains(session.id) == true
                ? client.map { (call, call.parent, $0) } : nil
        } else if let parentSid = legIndex[reject.callSid], let call = calls[parentSid], let dial = call.dial,
                  let leg = dial.child(reject.callSid), let client = leg.client, client.identity == session.identity,
                  dial.bridged !== leg {
            ringing = (call, leg, client)
        } else {
            ringing = nil
        }
        guard let (call, leg, client) = ringing else {
            return sendError(ParleyError(.callDoesNotExist, reason: "no ringing call \(reject.callSid)"), to: session, ref: ref)
        }
        client.invitedSessions.remove(session.id)
        session.callSids.remove(leg.sid)
        legRefused(call, leg, status: status, error: error)
    }
}
