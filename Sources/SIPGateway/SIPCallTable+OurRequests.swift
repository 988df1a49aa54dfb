import ParleyCore
import ParleyNet
import SDP
import SIP
import SIPWire
import Synchronization
import VoiceEngine

/// Our requests inside a phone's dialog (RFC 3261 §14.1): a re-INVITE with `a=sendonly` when the
/// other party holds (`a=sendrecv` when it resumes), and session refreshes when we are RFC 4028's
/// refresher (UPDATE when the phone allows it, else re-INVITE). One at a time, never while the
/// phone's own re-INVITE is open; sent again over UDP (Timer A for INVITE, E for UPDATE) until a
/// response, given up after 32 s, which ends the call as a 408 would (§12.2.1.2).
extension SIPCallTable {
    /// The other party held (`true`) or resumed the phone.
    func holdPhone(_ hold: Bool, callID: String) {
        calls.withLock { $0[callID]?.inDialog.wantHoldingPhone = hold }
        applyWantedHold(callID: callID)
    }

    /// Sends the re-INVITE that brings the phone to the hold state wanted, when nothing else is
    /// open in the dialog (otherwise it is tried again when that ends).
    func applyWantedHold(callID: String) {
        let media = context.media
        var holding = false
        guard let request = startOutgoing(callID: callID, { call in
            guard let mediaID = call.mediaID, call.inDialog.wantHoldingPhone != call.inDialog.holdingPhone,
                  let offer = media.reoffer(mediaID, holding: call.inDialog.wantHoldingPhone) else { return nil }
            call.inDialog.holdingBefore = call.inDialog.holdingPhone
            call.inDialog.holdingPhone = call.inDialog.wantHoldingPhone
            holding = call.inDialog.holdingPhone
            return call.dialog.reinvite(offer: offer, sentBy: sentBy(for: call.peer), headers: call.inDialog.requestHeaders)
        }) else { return }
        Log.info(.platform, "SIP call \(callID): re-INVITE to \(request.uri) (\(holding ? "hold" : "resume"))")
    }

    /// Our session refresh (RFC 4028 §7.4): UPDATE without a body when the phone allows UPDATE,
    /// else a re-INVITE with our current offer.
    func sendSessionRefresh(callID: String) {
        let media = context.media
        startOutgoing(callID: callID) { call in
            guard let mediaID = call.mediaID else { return nil }
            let sentBy = sentBy(for: call.peer)
            if call.inDialog.peerAllowsUpdate {
                return call.dialog.request(.update, sentBy: sentBy, headers: call.inDialog.requestHeaders)
            }
            guard let offer = media.reoffer(mediaID, holding: call.inDialog.holdingPhone) else { return nil }
            call.inDialog.holdingBefore = call.inDialog.holdingPhone
            return call.dialog.reinvite(offer: offer, sentBy: sentBy, headers: call.inDialog.requestHeaders)
        }
    }

    /// Opens our next request in the call's dialog when nothing else is open in it (§14.1):
    /// `make` builds it from the call (nil: nothing to send); it is sent, and sent again until a
    /// response over UDP.
    @discardableResult
    private func startOutgoing(callID: String, _ make: (inout Call) -> SIPRequest?) -> SIPRequest? {
        guard let (request, peer) = calls.withLock({ table -> (SIPRequest, SIPPeer)? in
            guard var call = table[callID], call.isIdle, let request = make(&call) else { return nil }
            call.inDialog.outgoing = request
            call.inDialog.outgoingProvisional = false
            table[callID] = call
            return (request, call.peer)
        }) else { return nil }
        send(request, to: peer)
        retransmitOutgoing(request, callID: callID, interval: peer.isReliable ? 32 : 0.5, elapsed: 0)
        return request
    }

    /// Timer A (INVITE: T1 doubling, stopped by a provisional) or E (UPDATE: doubling to T2),
    /// within 64·T1 (Timers B, F).
    private func retransmitOutgoing(_ request: SIPRequest, callID: String, interval: Double, elapsed: Double) {
        context.transport.loop.schedule(after: .milliseconds(Int(interval * 1000))) { [self] in
            guard let call = calls.withLock({ $0[callID] }), let outgoing = call.inDialog.outgoing,
                  outgoing.cseq == request.cseq, !call.ended else { return }
            guard elapsed + interval < 32 else {
                Log.info(.platform, "SIP call \(callID): no response to our \(request.method); ending the call")
                return endDialog(callID: callID)
            }
            let isInvite = request.method == .invite
            if !isInvite || !call.inDialog.outgoingProvisional { send(request, to: call.peer) }
            let next = isInvite ? interval * 2 : min(interval * 2, 4)
            retransmitOutgoing(request, callID: callID, interval: min(next, 32 - elapsed - interval), elapsed: elapsed + interval)
        }
    }

    /// A response to a request we sent in a phone's dialog; false when it is not for one.
    func handle(_ response: SIPResponse, from peer: SIPPeer) -> Bool {
        guard let callID = response.callID, let cseq = response.cseq else { return false }
        let now = context.clock()
        enum Step { case nothing, resendACK(SIPRequest, SIPPeer), accepted(SIPRequest?, MediaLegID?, SIPPeer), failed(SIPRequest?, SIPPeer) }
        guard let step = calls.withLock({ table -> Step? in
            guard var call = table[callID], call.dialog.matches(response) else { return nil }
            guard let outgoing = call.inDialog.outgoing, outgoing.cseq == cseq else {
                // A 2xx sent again because our ACK was lost: the same ACK again (§13.2.2.4).
                if response.isSuccess, cseq.method == .invite, let ack = call.inDialog.lastACK, ack.cseq?.number == cseq.number {
                    return .resendACK(ack, call.peer)
                }
                return .nothing
            }
            if response.statusCode < 200 {
                call.inDialog.outgoingProvisional = true
                table[callID] = call
                return .nothing
            }
            call.inDialog.outgoing = nil
            if response.isSuccess {
                call.dialog.receive(response)
                call.inDialog.sessionTimer?.refreshed(now: now, response: response)
                let ack = cseq.method == .invite ? call.dialog.ack(for: response, sentBy: sentBy(for: call.peer)) : nil
                if let ack {
                    call.inDialog.lastACK = ack
                    // Nothing new goes out in the dialog before this ACK (§14.1).
                    call.inDialog.sendingACK = true
                }
                table[callID] = call
                return .accepted(ack, outgoing.method == .invite && !response.body.isEmpty ? call.mediaID : nil, call.peer)
            }
            // §14.1: a refused re-INVITE leaves the session as it was.
            if outgoing.method == .invite { call.inDialog.holdingPhone = call.inDialog.holdingBefore }
            if response.statusCode == 422, let minSE = response.minSE { call.inDialog.sessionTimer?.raise(toMinSE: minSE) }
            table[callID] = call
            return .failed(outgoing.makeACK(for: response), call.peer)
        }) else { return false }
        switch step {
        case .nothing: break
        case .resendACK(let ack, let peer): send(ack, to: peer)
        case .accepted(let ack, let mediaID, let peer):
            if let ack {
                send(ack, to: peer)
                calls.withLock { $0[callID]?.inDialog.sendingACK = false }
            }
            if let mediaID {
                let media = context.media
                Task {
                    do throws(ParleyError) { try await media.acceptReanswer(mediaID, sdp: response.body) } catch {
                        Log.warning(.platform, "SIP call \(callID): the phone's answer to our re-INVITE is unusable: \(error)")
                    }
                    self.applyWantedHold(callID: callID)
                }
            } else {
                applyWantedHold(callID: callID)
            }
            sendNextInfoKey(callID: callID)
        case .failed(let ack, let peer):
            if let ack { send(ack, to: peer) }
            switch response.statusCode {
            case 408, 481:
                endDialog(callID: callID)  // §12.2.1.2: the dialog is gone
            case 491, 422:
                // §14.1: glare; try again after 2.1–4 s (a 422 with the phone's Min-SE at once would do, but one path is enough).
                context.transport.loop.schedule(after: .milliseconds(Int.random(in: 2100...4000))) { [self] in applyWantedHold(callID: callID) }
            default:
                Log.info(.platform, "SIP call \(callID): the phone refused our \(cseq.method) with \(response.statusCode)")
                // A phone that refuses an INFO key (415, 501) gets no more of them.
                if cseq.method == .info { calls.withLock { $0[callID]?.inDialog.pendingInfoKeys = [] } }
                applyWantedHold(callID: callID)
            }
        }
        return true
    }

    // MARK: - Keys as INFO (RFC 6086)

    /// Keys a phone without telephone-event is sent as INFOs, at most this many waiting.
    static let maxPendingInfoKeys = 64

    func queueInfoKeys(_ digits: String, callID: String) {
        let keys = digits.uppercased().filter { "0123456789*#ABCD".contains($0) }
        guard !keys.isEmpty else { return }
        calls.withLock { table in
            guard var call = table[callID] else { return }
            call.inDialog.pendingInfoKeys.append(contentsOf: keys.prefix(Self.maxPendingInfoKeys - call.inDialog.pendingInfoKeys.count))
            table[callID] = call
        }
        sendNextInfoKey(callID: callID)
    }

    /// The next waiting key as an INFO (`Signal=…`, 250 ms), when nothing else is open in the dialog.
    func sendNextInfoKey(callID: String) {
        startOutgoing(callID: callID) { call in
            guard !call.inDialog.pendingInfoKeys.isEmpty else { return nil }
            let key = SIPDTMFInfo(key: call.inDialog.pendingInfoKeys.removeFirst(), duration: 250)
            return call.dialog.info(body: key.relayBody, contentType: SIPMediaType(type: "application", subtype: "dtmf-relay"),
                                    sentBy: sentBy(for: call.peer))
        }
    }

    // MARK: - Session timer (RFC 4028)

    /// Looks at the call's session timer when it may next have something to do.
    func scheduleSessionCheck(callID: String, after minimum: Double = 0) {
        guard let next = calls.withLock({ $0[callID]?.inDialog.sessionTimer?.nextCheck }) else { return }
        let delay = max(0.05, minimum, next - context.clock())
        context.transport.loop.schedule(after: .milliseconds(Int(delay * 1000))) { [self] in sessionCheck(callID: callID) }
    }

    private func sessionCheck(callID: String) {
        let now = context.clock()
        guard let (due, idle) = calls.withLock({ table -> (SIPSessionTimer.Action?, Bool)? in
            guard let call = table[callID], !call.ended, let timer = call.inDialog.sessionTimer else { return nil }
            return (timer.due(now: now), call.isIdle)
        }) else { return }
        switch due {
        case nil:
            scheduleSessionCheck(callID: callID)
        case .refresh:
            if idle { sendSessionRefresh(callID: callID) }
            // Looked at again soon: the refresh's 2xx moves the next check on; without one the session expires.
            scheduleSessionCheck(callID: callID, after: 5)
        case .expired:
            Log.info(.platform, "SIP call \(callID): the session was not refreshed in time (RFC 4028 §10); ending it")
            endDialog(callID: callID)
        }
    }

    /// Ends an answered call from our side: BYE to the phone, hang-up to the engine.
    func endDialog(callID: String) {
        guard let call = calls.withLock({ $0.removeValue(forKey: callID) }), !call.ended else { return }
        var dialog = call.dialog
        send(dialog.bye(sentBy: sentBy(for: call.peer)), to: call.peer)
        if let mediaID = call.mediaID, call.callSid == nil {
            let media = context.media
            Task { await media.close(mediaID) }
        }
        if let callSid = call.callSid { Task { await context.voice.remoteHangup(callSid: callSid) } }
    }
}

extension SIPCallTable.Call {
    /// Answered, acknowledged, and no re-INVITE or UPDATE open either way: we may send one (§14.1).
    var isIdle: Bool {
        answered && !ended && inDialog.outgoing == nil && !inDialog.sendingACK && acknowledgedCSeq >= inDialog.lastInviteCSeq
            && (inDialog.incoming == nil || inDialog.incoming?.response != nil)
    }
}
