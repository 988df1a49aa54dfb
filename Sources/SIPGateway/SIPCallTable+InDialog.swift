import ParleyCore
import ParleyNet
import SDP
import SIP
import SIPWire
import Synchronization
import VoiceEngine

/// What happens inside the dialog of a phone's call once it is answered: re-INVITEs and UPDATEs
/// from the phone (hold, resume, a new address, session refreshes; RFC 3264 §8, RFC 6337), keys
/// in INFO (RFC 6086), and our own re-INVITEs (holding the phone when the other party holds,
/// refreshing the session as RFC 4028's refresher).
extension SIPCallTable {
    /// A call's in-dialog state.
    struct InDialog {
        /// The phone's last re-INVITE or UPDATE (its CSeq), and the answer once sent: a
        /// retransmission is absorbed while it is worked on, then answered again.
        var incoming: (cseq: UInt32, response: SIPResponse?)?
        /// Our re-INVITE or UPDATE awaiting its final response, and the ACK we sent for its 2xx.
        var outgoing: SIPRequest?
        var outgoingProvisional = false
        var lastACK: SIPRequest?
        /// The ACK of our re-INVITE's 2xx is on its way out: nothing else may overtake it.
        var sendingACK = false
        /// The phone holds the call (its last offer was `sendonly`, `inactive` or `c=0.0.0.0`).
        var heldByPhone = false
        /// What we last told the phone (our offer's `sendonly`), and what we want it to be.
        var holdingPhone = false
        var wantHoldingPhone = false
        /// ``holdingPhone`` before our re-INVITE, restored when the phone refuses it.
        var holdingBefore = false
        /// The CSeq of the last INVITE we answered 2xx: ours wait for its ACK (§14.1).
        var lastInviteCSeq: UInt32 = 0
        /// The CSeq of an offerless re-INVITE whose 200 carried our offer: its ACK has the answer.
        var answerInACK: UInt32?
        var sessionTimer: SIPSessionTimer?
        /// The phone's `Allow` lists UPDATE: our session refreshes may be UPDATEs (RFC 4028 §7.4).
        var peerAllowsUpdate = false
        /// Keys for a phone without RFC 4733 events, each going as an INFO when the dialog is idle.
        var pendingInfoKeys: [Character] = []

        /// `Supported: timer` and the session timer's headers, for a 2xx to an INVITE or UPDATE.
        var answerHeaders: SIPHeaders {
            var headers: SIPHeaders = ["Supported": "timer"]
            for field in sessionTimer?.responseHeaders ?? [:] { headers.add(field.name, field.value) }
            return headers
        }

        /// `Supported: timer`, and our session timer's `Session-Expires` as its refresher, for our requests.
        var requestHeaders: SIPHeaders { sessionTimer?.refreshHeaders ?? ["Supported": "timer"] }
    }

    // MARK: - Requests from the phone

    /// A re-INVITE (a To tag): an offer is answered on the call's leg; none gets our offer in
    /// the 200, answered in the ACK. Glare with our own re-INVITE gets 491 (RFC 3261 §14.2).
    func reinvite(_ request: SIPRequest, call: Call, from peer: SIPPeer) {
        refresh(request, from: peer, reliableAnswer: false)
    }

    /// An UPDATE (RFC 3311): a session refresh, with or without an offer.
    func update(_ request: SIPRequest, from peer: SIPPeer) {
        refresh(request, from: peer, reliableAnswer: true)
    }

    private func refresh(_ request: SIPRequest, from peer: SIPPeer, reliableAnswer: Bool) {
        guard let callID = request.callID, let cseq = request.cseq?.number else { return }
        let now = context.clock()
        enum Step { case reply(SIPResponse), absorb, go(Call, SIPSessionTimer?) }
        let step: Step = calls.withLock { table in
            guard var call = table[callID], call.answered, !call.ended else {
                return .reply(SIPResponse(replyingTo: request, statusCode: 481))
            }
            if let incoming = call.inDialog.incoming, incoming.cseq == cseq {
                return incoming.response.map(Step.reply) ?? .absorb
            }
            if call.inDialog.outgoing != nil || call.inDialog.incoming?.response == nil && call.inDialog.incoming != nil {
                return .reply(call.dialog.response(to: request, statusCode: 491, headers: ["Retry-After": "\(Int.random(in: 1...4))"]))
            }
            do throws(SIPDialogError) { try call.dialog.receive(request) } catch {
                return .reply(call.dialog.response(to: request, statusCode: error.statusCode))
            }
            var timer: SIPSessionTimer?
            if call.inDialog.sessionTimer != nil, case .accept(let negotiated) = SIPSessionTimer.negotiate(request, now: now) {
                timer = negotiated
            } else if call.inDialog.sessionTimer != nil, case .tooSmall(let minSE) = SIPSessionTimer.negotiate(request, now: now) {
                return .reply(call.dialog.response(to: request, statusCode: 422, headers: ["Min-SE": "\(minSE)"]))
            }
            call.inDialog.incoming = (cseq, nil)
            table[callID] = call
            return .go(call, timer)
        }
        switch step {
        case .reply(let response): return send(response, to: peer)
        case .absorb: return
        case .go(let call, let timer):
            Task { await answerRefresh(request, call: call, timer: timer, from: peer, ack: !reliableAnswer) }
        }
    }

    private func answerRefresh(_ request: SIPRequest, call: Call, timer: SIPSessionTimer?, from peer: SIPPeer, ack: Bool) async {
        guard let callID = call.invite.callID, let cseq = request.cseq?.number, let mediaID = call.mediaID else { return }
        var sdp: SessionDescription?
        var held = call.inDialog.heldByPhone
        var failure: Int?
        if !request.body.isEmpty {
            do throws(ParleyError) {
                (sdp, held) = try await context.media.answerReoffer(mediaID, offer: request.body)
            } catch {
                failure = Int(error.failureReason?.prefix(3) ?? "") ?? 488
            }
        } else if request.method == .invite {
            // No offer: ours goes in the 200, as it stands (RFC 3261 §14.2).
            sdp = context.media.reoffer(mediaID, holding: call.inDialog.holdingPhone)
        }
        let now = context.clock()
        guard let (response, callSid, holdChanged) = calls.withLock({ table -> (SIPResponse, String?, Bool)? in
            guard var current = table[callID], current.inDialog.incoming?.cseq == cseq else { return nil }
            let response: SIPResponse
            var changed = false
            if let failure {
                // §14.2: a refused re-offer leaves the session as it was.
                response = current.dialog.response(to: request, statusCode: failure)
            } else {
                if timer != nil || current.inDialog.sessionTimer != nil {
                    current.inDialog.sessionTimer?.refreshed(now: now, negotiated: timer)
                }
                changed = held != current.inDialog.heldByPhone
                current.inDialog.heldByPhone = held
                if request.method == .invite {
                    current.inDialog.lastInviteCSeq = cseq
                    if request.body.isEmpty { current.inDialog.answerInACK = cseq }
                }
                response = current.dialog.response(to: request, statusCode: 200, sdp: sdp, headers: current.inDialog.answerHeaders)
            }
            current.inDialog.incoming = (cseq, response)
            table[callID] = current
            return (response, current.callSid, changed)
        }) else { return }
        send(response, to: peer)
        if ack, response.isSuccess, !peer.isReliable {
            retransmitUntilACK(callID: callID, response: response, interval: 0.5, elapsed: 0)
        }
        if holdChanged, let callSid {
            Log.info(.platform, "SIP call \(callID): the phone \(held ? "holds" : "resumes") the call")
            await context.voice.remoteHold(callSid: callSid, hold: held)
        }
        applyWantedHold(callID: callID)
    }

    /// INFO (RFC 6086): a key in `application/dtmf-relay` or `application/dtmf` reaches the
    /// engine as the phone's RFC 4733 events do; an empty INFO is answered 200; other bodies 415.
    func info(_ request: SIPRequest, from peer: SIPPeer) {
        guard let callID = request.callID else { return }
        enum Step { case reply(SIPResponse), key(SIPResponse, Character, String?) }
        let step: Step = calls.withLock { table in
            guard var call = table[callID] else { return .reply(SIPResponse(replyingTo: request, statusCode: 481)) }
            do throws(SIPDialogError) { try call.dialog.receive(request) } catch {
                return .reply(call.dialog.response(to: request, statusCode: error.statusCode))
            }
            table[callID] = call
            guard !request.body.isEmpty else { return .reply(call.dialog.response(to: request, statusCode: 200)) }
            guard let type = request.contentType else { return .reply(call.dialog.response(to: request, statusCode: 400)) }
            do throws(SIPDTMFInfoError) {
                let info = try SIPDTMFInfo(type: type.type, subtype: type.subtype, body: request.body)
                return .key(call.dialog.response(to: request, statusCode: 200), info.key, call.callSid)
            } catch {
                let accept: SIPHeaders = error == .unsupportedType ? ["Accept": SIPDTMFInfo.mediaTypes.joined(separator: ", ")] : [:]
                return .reply(call.dialog.response(to: request, statusCode: error.statusCode, headers: accept))
            }
        }
        switch step {
        case .reply(let response): send(response, to: peer)
        case .key(let response, let key, let callSid):
            send(response, to: peer)
            guard let callSid else { return }
            Task { await context.voice.remoteDigits(String(key), callSid: callSid) }
        }
    }
}
