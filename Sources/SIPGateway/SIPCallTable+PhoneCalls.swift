import Foundation
import ParleyCore
import ParleyNet
import ParleyStore
import SDP
import SIP
import SIPMedia
import SIPWire
import Synchronization
import VoiceEngine

/// Calls a SIP phone places through the server (the B2BUA's incoming side, RFC 3261 §13.3): the
/// INVITE is authenticated by digest (407, `Proxy-Authorization`), its offer answered by a SIP
/// media leg, and the call handed to the voice engine, which routes it as Twilio and Plivo do:
/// the endpoint's application (Plivo `app_id`), else the SIP domain's VoiceUrl with Twilio's SIP
/// parameters, else `sip:<identity>@…` straight to that client. What the engine decides comes
/// back as SIP: 180, 200 OK (retransmitted over UDP until the ACK, §13.3.1.4), a final error, or a BYE.
extension SIPCallTable {
    func invite(_ request: SIPRequest, from peer: SIPPeer) {
        guard let callID = request.callID else { return send(SIPResponse(replyingTo: request, statusCode: 400), to: peer) }
        if request.to?.tag == nil, resendRejection(request, from: peer) { return }
        if let existing = calls.withLock({ $0[callID] }) {
            // A retransmission (same transaction) gets the last response again; a re-INVITE in the
            // dialog (hold, refresh) is answered with the current answer.
            if request.to?.tag == nil, let response = existing.lastResponse { return send(response, to: peer) }
            if request.to?.tag != nil { return reinvite(request, call: existing, from: peer) }
            return
        }
        // A To tag names a dialog (§12.2.2); one we do not hold is not a new call to challenge.
        if request.to?.tag != nil {
            return send(SIPResponse(replyingTo: request, statusCode: 481), to: peer)
        }
        guard let to = request.to, case .sip(let target) = request.uri, let from = request.from,
              case .sip(let fromURI) = from.uri, let user = fromURI.user, !user.isEmpty else {
            return send(SIPResponse(replyingTo: request, statusCode: 400, reasonPhrase: "Bad Request (not a SIP call)"), to: peer)
        }
        let now = context.clock()
        let toTag = SIPIdentifiers.tag()
        let domain = fromURI.host.description.lowercased()
        let route: RemoteCallRequest
        if let trunkCall = SIPTrunkInbound.route(request, callee: target, from: peer, store: context.store) {
            route = trunkCall  // from a trunk's address to one of its account's numbers: not challenged
        } else {
            switch context.authenticator.authenticate(request, user: user, domain: domain, role: .proxy, peer: peer, now: now) {
            case .challenge(let stale):
                return send(context.authenticator.challenge(request, role: .proxy, toTag: toTag, stale: stale, now: now), to: peer)
            case .refused:
                return send(SIPResponse(replyingTo: request, statusCode: 403, toTag: toTag), to: peer)
            case .authenticated(let found):
                route = routing(request, caller: found, callee: target, to: to)
            }
        }
        let source = peer.address.ipBytes
        let admitted = calls.withLock { table in
            let calling = table.values.lazy.filter { !$0.dialed }
            return calling.count < capacity && calling.filter { $0.peer.address.ipBytes == source }.count < perSource
        }
        guard admitted else {
            return send(SIPResponse(replyingTo: request, statusCode: 503, toTag: toTag, headers: ["Retry-After": "5"]), to: peer)
        }
        var timer: SIPSessionTimer?
        switch SIPSessionTimer.negotiate(request, now: now) {
        case .tooSmall(let minSE):
            // RFC 4028 §9: an interval below our minimum is refused with ours.
            return reject(request, SIPResponse(replyingTo: request, statusCode: 422, toTag: toTag, headers: ["Min-SE": "\(minSE)"]),
                          peer: peer)
        case .accept(let accepted): timer = accepted
        case .none: break
        }
        let dialog: SIPDialog
        do {
            dialog = try SIPDialog(uas: request, localTag: toTag, contact: contact(for: peer), overTLS: peer.transport == .tls)
        } catch {
            return send(SIPResponse(replyingTo: request, statusCode: error.statusCode, toTag: toTag), to: peer)
        }
        let trying = SIPResponse(replyingTo: request, statusCode: 100)
        calls.withLock {
            var call = Call(invite: request, peer: peer, dialog: dialog, lastResponse: trying)
            call.inDialog.sessionTimer = timer
            call.inDialog.lastInviteCSeq = request.cseq?.number ?? 0
            call.inDialog.peerAllowsUpdate = request.allow.contains(.update)
            $0[callID] = call
        }
        send(trying, to: peer)
        Task { await self.start(callID: callID, request: route, offer: request.bodyText) }
    }

    /// Hands the call to the engine once its media exists.
    private func start(callID: String, request: RemoteCallRequest, offer: String) async {
        let voice = context.voice
        let media: CallMediaAnswer
        do {
            media = try await context.media.createLegMedia(offer: offer) { event in voice.deliverMediaEvent(event) }
        } catch {
            return fail(callID: callID, status: 488, reason: "Not Acceptable Here")
        }
        let party = SIPInboundParty(calls: self, callID: callID)
        guard let sdp = try? SessionDescription(parsing: media.sdp) else {
            await context.media.close(media.id)
            return fail(callID: callID, status: 500, reason: nil)
        }
        let alive = calls.withLock { table -> Bool in
            guard table[callID] != nil, table[callID]?.ended == false else { return false }
            table[callID]?.answerSDP = sdp
            table[callID]?.mediaID = media.id
            return true
        }
        guard alive else { return await context.media.close(media.id) }
        switch await voice.startRemoteCall(request, party: party, media: media) {
        case .success(let callSid):
            calls.withLock { $0[callID]?.callSid = callSid }
            Log.info(.platform, "SIP call \(callID) from \(request.from) is call \(callSid)")
        case .failure(let error):
            await context.media.close(media.id)
            fail(callID: callID, status: Self.status(for: error), reason: nil)
        }
    }

    /// Who the call goes to, as Twilio's and Plivo's SIP routing decide it.
    private func routing(_ invite: SIPRequest, caller: SIPCredential, callee: SIPURI, to: SIPNameAddress) -> RemoteCallRequest {
        let fromText = invite.from.map { "\($0.uri)" } ?? ""
        var request = RemoteCallRequest(accountSid: caller.accountSid, from: fromText, to: "\(callee)")
        let host = callee.host.description.lowercased()
        if let endpoint = try? context.store.endpoint(username: caller.username), let app = endpoint.applicationSid, !app.isEmpty {
            request.applicationSid = app
        } else if let domain = try? context.store.sipDomain(name: host), domain.accountSid == caller.accountSid,
                  let url = domain.draft.voiceURL, !url.isEmpty {
            request.voiceURL = url
            request.voiceMethod = domain.draft.voiceMethod
            request.statusCallback = domain.draft.voiceStatusCallbackURL
            request.parameters = [("SipDomain", domain.domainName), ("SipDomainSid", domain.sid)]
        } else {
            request.directIdentity = callee.user
        }
        request.parameters.append(("SipCallId", invite.callID ?? ""))
        for field in invite.headers.fields where field.name.lowercased().hasPrefix("x-") {
            request.parameters.append(("SipHeader_\(field.name)", field.value))
        }
        return request
    }

    func ack(_ request: SIPRequest) {
        guard let callID = request.callID else { return }
        if rejectionAcknowledged(request) { return }
        let cseq = request.cseq?.number ?? 0
        let (answerInACK, mediaID) = calls.withLock { table -> (Bool, MediaLegID?) in
            guard var call = table[callID], call.dialog.matches(request) else { return (false, nil) }
            call.acknowledgedCSeq = max(call.acknowledgedCSeq, cseq)
            let waiting = call.inDialog.answerInACK == cseq
            if waiting { call.inDialog.answerInACK = nil }
            table[callID] = call
            return (waiting, call.mediaID)
        }
        // An offerless re-INVITE got our offer in its 200; the answer is in this ACK (RFC 3264 §8).
        if answerInACK, let mediaID, !request.body.isEmpty {
            let media = context.media
            Task { try? await media.acceptReanswer(mediaID, sdp: request.body) }
        }
        applyWantedHold(callID: callID)
    }

    func bye(_ request: SIPRequest, from peer: SIPPeer) {
        guard let callID = request.callID, let call = calls.withLock({ $0.removeValue(forKey: callID) }), call.dialog.matches(request) else {
            return send(SIPResponse(replyingTo: request, statusCode: 481), to: peer)
        }
        send(SIPResponse(replyingTo: request, statusCode: 200), to: peer)
        if let callSid = call.callSid { Task { await context.voice.remoteHangup(callSid: callSid) } }
    }

    func cancel(_ request: SIPRequest, from peer: SIPPeer) {
        guard let callID = request.callID, let call = calls.withLock({ $0[callID] }), !call.answered else {
            return send(SIPResponse(replyingTo: request, statusCode: 481), to: peer)
        }
        send(SIPResponse(replyingTo: request, statusCode: 200), to: peer)
        fail(callID: callID, status: 487, reason: "Request Terminated")
        if let callSid = call.callSid { Task { await context.voice.remoteHangup(callSid: callSid) } }
    }

    // MARK: - What the engine decided

    func ringing(callID: String) {
        guard let response = calls.withLock({ table -> SIPResponse? in
            guard let call = table[callID], !call.answered, !call.ended else { return nil }
            let response = call.dialog.response(to: call.invite, statusCode: 180)
            table[callID]?.lastResponse = response
            return response
        }), let peer = calls.withLock({ $0[callID]?.peer }) else { return }
        send(response, to: peer)
    }

    func answered(callID: String) {
        let now = context.clock()
        guard let (response, peer, timed) = calls.withLock({ table -> (SIPResponse, SIPPeer, Bool)? in
            guard var call = table[callID], !call.answered, !call.ended, let sdp = call.answerSDP else { return nil }
            call.inDialog.sessionTimer?.refreshed(now: now)
            let response = call.dialog.response(to: call.invite, statusCode: 200, sdp: sdp, headers: call.inDialog.answerHeaders)
            call.answered = true
            call.lastResponse = response
            table[callID] = call
            return (response, call.peer, call.inDialog.sessionTimer != nil)
        }) else { return }
        send(response, to: peer)
        if !peer.isReliable { retransmitUntilACK(callID: callID, response: response, interval: 0.5, elapsed: 0) }
        if timed { scheduleSessionCheck(callID: callID) }
    }

    /// §13.3.1.4: the 2xx goes again at T1, 2·T1, … capped at T2, until the ACK or 64·T1.
    func retransmitUntilACK(callID: String, response: SIPResponse, interval: Double, elapsed: Double) {
        let cseq = response.cseq?.number ?? 0
        context.transport.loop.schedule(after: .milliseconds(Int(interval * 1000))) { [self] in
            guard let call = calls.withLock({ $0[callID] }), call.acknowledgedCSeq < cseq, !call.ended else { return }
            guard elapsed + interval < 32 else {
                Log.info(.platform, "SIP call \(callID): no ACK for the 200 OK; hanging up")
                return endDialog(callID: callID)
            }
            send(response, to: call.peer)
            retransmitUntilACK(callID: callID, response: response, interval: min(interval * 2, 4), elapsed: elapsed + interval)
        }
    }

    // MARK: - Failures

    private func fail(callID: String, status: Int, reason: String?) {
        guard let call = calls.withLock({ table -> Call? in
            guard let call = table[callID], !call.answered else { return nil }
            table[callID] = nil
            return call
        }) else { return }
        reject(call.invite, call.dialog.response(to: call.invite, statusCode: status, reasonPhrase: reason), peer: call.peer)
    }

    /// The SIP status for why the engine ended an unanswered call (Twilio's codes back to SIP).
    static func status(for error: ParleyError) -> Int {
        switch error.code.rawValue {
        case 31486: 486
        case 31480, 31408: 480
        case 31404, 31005: 404
        case 31603: 603
        case 31487: 487
        case 53404, 53403: 488
        case 31403, 20106: 403
        default: 500
        }
    }
}

/// The engine's view of a phone that called in.
final class SIPInboundParty: RemoteParty {
    private let calls: SIPCallTable?
    private let callID: String

    init(calls: SIPCallTable, callID: String) {
        self.calls = calls
        self.callID = callID
    }

    func ringing(callSid: String) { calls?.ringing(callID: callID) }
    func answered(callSid: String) { calls?.answered(callID: callID) }
    func hungUp(callSid: String, error: ParleyError?) { calls?.hungUp(callID: callID, error: error) }
    func digits(_ digits: String, callSid: String) { calls?.sendDigits(digits, callID: callID) }
    func held(_ hold: Bool, callSid: String) { calls?.holdPhone(hold, callID: callID) }
}
