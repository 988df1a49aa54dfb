import ParleyCore
import ParleyNet
import SDP
import SIP
import SIPWire

/// The incoming side (RFC 3261 §13.3): ring, answer with our SDP answer (RFC 3264 §6), reject,
/// CANCEL from the caller, the 2xx sent again over UDP until its ACK (§13.3.1.4).
extension CallLeg {
    convenience init(incoming request: SIPRequest, ua: UserAgent) {
        self.init(direction: .incoming, callID: request.callID ?? "", invite: request, ua: ua)
    }

    /// The caller's INVITE arrived: 100 Trying, our answer prepared (a bad offer is refused 488
    /// at once, §13.3.1.3), 180 Ringing with our tag, and the endpoint told.
    func ring() {
        var transaction = InviteServerTransaction(reliable: ua.settings.transport != .udp, timers: ua.settings.timers)
        let steps = transaction.start()
        serverTransaction = transaction
        if steps.contains(.transmitTrying) { ua.send(.response(SIPResponse(replyingTo: invite, statusCode: 100))) }
        let from = invite.from?.uri.description ?? ""
        let headers = ExtraHeaders.received(in: invite.headers)
        do {
            try openAudio()
            pendingAnswer = try SIPAudioNegotiation.answer(toOfferBody: invite.body, local: local)
        } catch let refusal as SIPAudioRefusal {
            report(.incoming(from: from, headers: headers))
            respondFinal(refusal.statusCode, reason: refusal.description)
            end(.invalid(EndpointError(code: refusal.statusCode, reason: "the caller's offer: \(refusal)")))
            return
        } catch {
            report(.incoming(from: from, headers: headers))
            respondFinal(500, reason: "Media Unavailable")
            end(.invalid(error as? EndpointError ?? EndpointError(code: 500, reason: "\(error)")))
            return
        }
        let contact = ua.contact(user: ua.credentials?.username ?? "parley")
        guard let early = try? SIPDialog(uas: invite, localTag: localTag, contact: contact, state: .early) else {
            respondFinal(400, reason: "Bad Request")
            end(.invalid(EndpointError(code: 400, reason: "the INVITE cannot make a dialog")))
            return
        }
        dialog = early
        phase = .ringing
        respondProvisional(180)
        report(.incoming(from: from, headers: headers))
    }

    /// Answers with the prepared SDP (the seed's `answer`).
    func answer() throws(EndpointError) {
        guard direction == .incoming, phase == .ringing, var dialog, let pendingAnswer, let audio else {
            throw EndpointError(code: EndpointError.invalidState, reason: "no ringing call to answer")
        }
        dialog.confirm()
        self.dialog = dialog
        let ok = dialog.response(to: invite, statusCode: 200, sdp: pendingAnswer.sdp,
                                 headers: ["Allow": RegistrationConfiguration.allow, "User-Agent": "Parley-Endpoint/1"])
        okResponse = ok
        phase = .answered
        generation += 1
        if var transaction = serverTransaction {
            _ = transaction.send(status: 200)
            serverTransaction = transaction
        }
        ua.send(.response(ok))
        if ua.settings.transport == .udp { retransmitOK(after: ua.settings.timers.t1, elapsed: 0) }
        do {
            try audio.configure(pendingAnswer.parameters, maxAverageBitrate: ua.settings.maxAverageBitrate)
            audioStarted = true
        } catch {
            hangup()
            throw error
        }
        report(.answered)
    }

    /// §13.3.1.4: the 2xx again at T1, doubling to T2, until the ACK; 64·T1 without it ends the call with BYE.
    private func retransmitOK(after interval: Double, elapsed: Double) {
        let id = callID, current = generation
        ua.schedule(after: interval) { ua in
            guard let leg = ua.calls[id], leg.generation == current, !leg.acknowledged, let ok = leg.okResponse else { return }
            let total = elapsed + interval
            if total >= ua.settings.timers.timeout {
                leg.hangup()
                return
            }
            ua.send(.response(ok))
            leg.retransmitOK(after: min(interval * 2, ua.settings.timers.t2), elapsed: total)
        }
    }

    /// Refuses the ringing call (the seed's `reject`): 603 Decline.
    func reject() throws(EndpointError) {
        guard direction == .incoming, phase == .ringing else {
            throw EndpointError(code: EndpointError.invalidState, reason: "no ringing call to reject")
        }
        respondFinal(603, reason: "Decline")
        end(.rejected(EndpointError(code: 603, reason: "rejected here")))
    }

    func respondProvisional(_ status: Int) {
        guard let dialog else { return }
        if var transaction = serverTransaction {
            _ = transaction.send(status: status)
            serverTransaction = transaction
        }
        ua.send(.response(dialog.response(to: invite, statusCode: status)))
    }

    /// A final error to the INVITE, sent again over UDP until its ACK (Timer G, §17.2.1).
    func respondFinal(_ status: Int, reason: String) {
        let response = SIPResponse(replyingTo: invite, statusCode: status, reasonPhrase: reason, toTag: localTag)
        okResponse = nil
        guard var transaction = serverTransaction else {
            ua.send(.response(response))
            return
        }
        let steps = transaction.send(status: status)
        serverTransaction = transaction
        lastResponse = response
        runServer(steps)
    }

    func runServer(_ steps: [TransactionAction]) {
        for step in steps {
            switch step {
            case .transmitResponse: if let lastResponse { ua.send(.response(lastResponse)) }
            case .startTimer(let timer, let seconds):
                // The transaction outlives the leg (its ACK may come after the call ended): keep it in the closure.
                let bound = LoopBound(self, loop: ua.loop)
                ua.schedule(after: seconds) { _ in
                    let leg = bound.value
                    guard var transaction = leg.serverTransaction else { return }
                    let steps = transaction.fired(timer)
                    leg.serverTransaction = transaction
                    leg.runServer(steps)
                }
            case .terminated:
                serverTransaction = nil
                ua.finishing[callID] = nil
            default: break
            }
        }
    }

    /// A request from the far end within this call.
    func received(_ request: SIPRequest) {
        switch request.method {
        case .ack:
            if okResponse != nil, request.cseq?.number == invite.cseq?.number {
                acknowledged = true
            } else if var transaction = serverTransaction {
                let steps = transaction.receivedACK()
                serverTransaction = transaction
                runServer(steps)
            }
        case .invite where request.to?.tag == nil:
            // A retransmitted INVITE gets our last response again (§17.2.3).
            if let okResponse { ua.send(.response(okResponse)) } else if let serverTransaction {
                if !serverTransaction.receivedRequestRetransmission().isEmpty, let lastResponse { ua.send(.response(lastResponse)) }
                else if let dialog { ua.send(.response(dialog.response(to: invite, statusCode: 180))) }
            }
        case .cancel:
            // §9.2: 200 to the CANCEL; 487 to the INVITE if it was not answered.
            ua.send(.response(SIPResponse(replyingTo: request, statusCode: 200, toTag: localTag)))
            guard direction == .incoming, phase == .ringing else { return }
            respondFinal(487, reason: "Request Terminated")
            end(.rejected(EndpointError(code: 487, reason: "the caller hung up before the answer")))
        default:
            receivedInDialog(request)
        }
    }
}
