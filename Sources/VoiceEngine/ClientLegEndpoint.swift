import ParleyCore
import ParleyStore
import Signaling

/// A client's side of a leg: the signaling session that speaks for it and, while it rings, the
/// sessions and push bindings its invite went to. Made for callers by `invite`, for callees by
/// `ClientDialRoute` (a `<Dial><Client>` leg or a REST-created call to `client:NAME`).
final class ClientLegEndpoint: LegEndpoint {
    /// The client's identity (`bob` for `client:bob`).
    let identity: String
    /// The signaling session that speaks for this leg (nil while its invite rings).
    var sessionID: String?
    /// The caller's own id for the call (`invite.callId`), for a caller's leg.
    var clientCallID: String?
    /// Signaling sessions the invite was sent to that were not yet told it stopped.
    var invitedSessions: Set<String> = []
    /// Push bindings the invite was sent to (they get a cancel push when it stops ringing).
    var pushedBindings: [PushBinding] = []
    /// Invite pushes whose provider has not answered yet.
    var pendingPushes = 0

    init(identity: String, sessionID: String? = nil, clientCallID: String? = nil) {
        self.identity = identity
        self.sessionID = sessionID
        self.clientCallID = clientCallID
    }

    private func send(_ message: SignalingMessage, engine: isolated VoiceService) {
        if let sessionID { engine.sessions[sessionID]?.send(message) }
    }

    func calleeRinging(_ leg: CallLeg, engine: isolated VoiceService) {
        send(.ringing(CallReference(callSid: leg.sid)), engine: engine)
    }

    func connected(_ leg: CallLeg, engine: isolated VoiceService) {
        send(.connected(CallReference(callSid: leg.sid)), engine: engine)
    }

    func mediaAnswered(_ leg: CallLeg, sdp: String, engine: isolated VoiceService) {
        send(.answer(Answer(callSid: leg.sid, sdp: sdp)), engine: engine)
    }

    func hangUp(_ leg: CallLeg, error: ParleyError?, engine: isolated VoiceService) {
        send(.hangup(Hangup(callSid: leg.sid, code: error?.code.rawValue, reason: error?.failureReason)), engine: engine)
    }

    /// `cancelled` to the sessions still alerted, a cancel push to the bindings.
    func cancel(_ leg: CallLeg, code: ParleyError.Code, reason: String, engine: isolated VoiceService) {
        for id in invitedSessions {
            guard let session = engine.sessions[id] else { continue }
            session.send(.cancelled(Cancelled(callSid: leg.sid, code: code.rawValue, reason: reason)))
            session.callSids.remove(leg.sid)
        }
        invitedSessions = []
        guard let notifier = engine.notifier, !pushedBindings.isEmpty else { return }
        let notice = IncomingCallNotice(kind: .cancel, callSid: leg.sid, accountSid: leg.record.accountSid,
                                        from: leg.record.from, to: leg.record.to, parameters: [], bridgeToken: "")
        for binding in pushedBindings {
            Task { _ = await notifier.notify(notice, binding: binding) }
        }
        pushedBindings = []
    }

    func released(_ leg: CallLeg, engine: isolated VoiceService) {
        if let sessionID { engine.sessions[sessionID]?.callSids.remove(leg.sid) }
    }

    func relayDigits(_ digits: String, to leg: CallLeg, engine: isolated VoiceService) {
        send(.dtmf(DTMF(callSid: leg.sid, digits: digits)), engine: engine)
    }

    func relay(_ message: CallMessage, to leg: CallLeg, engine: isolated VoiceService) -> Bool {
        guard let sessionID, let peer = engine.sessions[sessionID] else { return false }
        peer.send(.message(message))
        return true
    }
}

extension CallLeg {
    /// The leg's client side, when a client is its party.
    var client: ClientLegEndpoint? { endpoint as? ClientLegEndpoint }
}
