import ParleyCore
import SDP
import SIP
import SIPWire

/// Requests within the dialog (RFC 3261 §12.2, §14, §15): our BYE, CANCEL before an answer, our
/// re-INVITEs for hold (RFC 3264 §8.4: `a=sendonly`, then `a=sendrecv`), and the far end's BYE,
/// re-INVITE, INFO and OPTIONS.
extension CallLeg {
    /// Ends the call from our side (the seed's `hangup`): BYE once answered, CANCEL before
    /// (§9.1; when nothing came back yet it waits for the first provisional response), a 486 to a
    /// ringing incoming call.
    func hangup() {
        switch (direction, phase) {
        case (_, .ended):
            return
        case (.incoming, .ringing), (.incoming, .calling):
            respondFinal(486, reason: "Busy Here")
            end(.rejected(EndpointError(code: 486, reason: "hung up before the answer")))
        case (.outgoing, .calling), (.outgoing, .ringing):
            if lastResponse?.isProvisional == true {
                sendCancel()
            } else {
                cancelPending = true
            }
        case (_, .answered):
            if var dialog {
                let bye = dialog.bye(sentBy: ua.sentBy)
                self.dialog = dialog
                ua.sendRequest(bye)
            }
            end(.hungUp(byUs: true))
        }
    }

    /// Holds (`hold: true`) or resumes the call with a re-INVITE (RFC 3264 §8.4): our offer says
    /// `sendonly`, then `sendrecv`; the audio engine stops capturing and playing meanwhile.
    func setHold(_ hold: Bool) throws(EndpointError) {
        guard phase == .answered, var dialog else {
            throw EndpointError(code: EndpointError.invalidState, reason: "hold needs an answered call")
        }
        audio?.isOnHold = hold
        guard reinvite == nil else {
            pendingHold = hold  // sent when the one in flight ends
            return
        }
        pendingHold = nil
        local.direction = hold ? .sendonly : .sendrecv
        local.sessionVersion += 1
        let offer = SIPAudioOffer.make(local)
        let request = dialog.reinvite(offer: offer, sentBy: ua.sentBy)
        self.dialog = dialog
        self.offer = offer
        var transaction = InviteClientTransaction(reliable: ua.settings.transport != .udp, timers: ua.settings.timers)
        let steps = transaction.start()
        reinvite = (request, transaction)
        runReinvite(steps, response: nil)
    }

    private func runReinvite(_ steps: [TransactionAction], response: SIPResponse?) {
        guard let current = reinvite else { return }
        for step in steps {
            switch step {
            case .transmitRequest: ua.send(.request(current.request))
            case .transmitACK:
                if let response, let ack = current.request.makeACK(for: response) { ua.send(.request(ack)) }
            case .startTimer(let timer, let seconds):
                let id = callID, branch = current.request.via?.branch
                ua.schedule(after: seconds) { ua in
                    guard let leg = ua.calls[id], var pending = leg.reinvite, pending.request.via?.branch == branch else { return }
                    let steps = pending.transaction.fired(timer)
                    leg.reinvite = pending
                    leg.runReinvite(steps, response: nil)
                }
            case .deliverResponse:
                guard let response, response.statusCode >= 200 else { break }
                if response.isSuccess, var dialog {
                    dialog.receive(response)
                    self.dialog = dialog
                    let ack = dialog.ack(for: response, sentBy: ua.sentBy)
                    ua.send(.request(ack))
                    reinviteACK = (current.request.via?.branch ?? "", ack)
                    if let offer, let audio, let parameters = try? SIPAudioNegotiation.accept(answerBody: response.body, toOffer: offer) {
                        try? audio.configure(parameters, maxAverageBitrate: ua.settings.maxAverageBitrate)
                    }
                } else if response.statusCode == 481 || response.statusCode == 408 {
                    hangup()  // §12.2.1.2: the dialog is gone
                    return
                }
                // The exchange is over at its final response (a 2xx sent again is ACKed from
                // `reinviteACK`); a hold or resume asked for meanwhile goes now.
                reinvite = nil
                if phase == .answered, let hold = pendingHold { try? setHold(hold) }
                return
            case .timedOut:
                hangup()
            case .terminated:
                reinvite = nil
            default:
                break
            }
        }
    }

    func receivedReinviteResponse(_ response: SIPResponse) {
        if ua.settings.debug, let audio { Log.info(.core, "endpoint audio before re-INVITE response: sent=\(audio.counts.sent) received=\(audio.counts.received)") }
        guard var pending = reinvite else { return }
        let steps = pending.transaction.received(status: response.statusCode)
        reinvite = pending
        runReinvite(steps, response: response)
    }

    /// BYE, a re-INVITE, INFO, OPTIONS, UPDATE from the far end.
    func receivedInDialog(_ request: SIPRequest) {
        guard var dialog else {
            ua.send(.response(SIPResponse(replyingTo: request, statusCode: 481)))
            return
        }
        do { try dialog.receive(request) } catch {
            ua.send(.response(SIPResponse(replyingTo: request, statusCode: error.statusCode)))
            return
        }
        self.dialog = dialog
        switch request.method {
        case .bye:
            ua.send(.response(dialog.response(to: request, statusCode: 200)))
            if phase == .answered {
                end(.hungUp(byUs: false))
            } else {
                end(.rejected(EndpointError(code: 487, reason: "ended before the answer")))
            }
        case .invite, .update:
            answerReoffer(request, dialog: dialog)
        case .info, .options:
            ua.send(.response(dialog.response(to: request, statusCode: 200)))
        default:
            ua.send(.response(dialog.response(to: request, statusCode: 405, headers: ["Allow": RegistrationConfiguration.allow])))
        }
    }

    /// A re-offer (hold, resume, a new address; RFC 3264 §8): answered on the same port and key,
    /// `o=` one version higher; an offerless re-INVITE gets our offer (§14.2).
    private func answerReoffer(_ request: SIPRequest, dialog: SIPDialog) {
        guard !request.body.isEmpty else {
            local.sessionVersion += 1
            ua.send(.response(dialog.response(to: request, statusCode: 200, sdp: SIPAudioOffer.make(local))))
            return
        }
        var answering = local
        answering.sessionVersion += 1
        do {
            let answer = try SIPAudioNegotiation.answer(toOfferBody: request.body, local: answering)
            local.sessionVersion = answering.sessionVersion
            try audio?.configure(answer.parameters, maxAverageBitrate: ua.settings.maxAverageBitrate)
            ua.send(.response(dialog.response(to: request, statusCode: 200, sdp: answer.sdp)))
        } catch let refusal as SIPAudioRefusal {
            ua.send(.response(dialog.response(to: request, statusCode: refusal.statusCode, reasonPhrase: refusal.description)))
        } catch {
            ua.send(.response(dialog.response(to: request, statusCode: 500)))
        }
    }

    func sendDigits(_ digits: String) throws(EndpointError) {
        guard phase == .answered || audioStarted, let audio else {
            throw EndpointError(code: EndpointError.invalidState, reason: "digits need a call with audio")
        }
        try audio.sendDigits(digits)
    }
}
