import AudioDevices
import ParleyCore
import ParleyNet
import SDP
import SIP
import SIPWire

/// What happens to a call, reported by its ``CallLeg`` through the user agent.
enum CallEvent: Sendable {
    /// Outgoing: the INVITE went out.
    case calling
    /// Outgoing: 180, or 183 (early media).
    case ringing
    /// Outgoing: 2xx; incoming: we answered.
    case answered
    /// Incoming: it rings here; the caller, and its `X-` headers.
    case incoming(from: String, headers: [String: String])
    /// Outgoing: refused (busy, declined, timeout); incoming: rejected here or cancelled by the caller.
    case rejected(EndpointError)
    /// Outgoing: an invalid destination (404, 484, …); incoming: an offer we cannot take.
    case invalid(EndpointError)
    /// An answered call ended; `byUs` when we hung up.
    case hungUp(byUs: Bool)
    /// A key the far end pressed.
    case digit(String)
}

/// One call (RFC 3261 §13): its INVITE transaction, dialog, offer/answer state and audio.
/// Confined to the user agent's loop. The outgoing side is here, the incoming side in
/// `CallLeg+Incoming.swift`, requests within the dialog (BYE, re-INVITE for hold) in `CallLeg+Dialog.swift`.
final class CallLeg {
    enum Direction { case outgoing, incoming }
    enum Phase: Equatable { case calling, ringing, answered, ended }

    let direction: Direction
    let callID: String
    unowned let ua: UserAgent
    var phase = Phase.calling
    /// Our INVITE (outgoing) or the caller's (incoming).
    var invite: SIPRequest
    var clientTransaction: InviteClientTransaction?
    var serverTransaction: InviteServerTransaction?
    /// The last response of the INVITE transaction (its ACK for a non-2xx is derived from it).
    var lastResponse: SIPResponse?
    var dialog: SIPDialog?
    /// Our side of the audio: address, port, key, codecs; ``SIPLocalAudio/direction`` for hold.
    var local: SIPLocalAudio
    /// Our offer in the INVITE (outgoing) or our last re-INVITE.
    var offer: SessionDescription?
    var audio: CallAudio?
    var audioStarted = false
    var authAnswered = false
    /// Hang-up asked for before any provisional response: CANCEL once one arrives (§9.1).
    var cancelPending = false
    var cancelled = false
    /// Incoming: our To tag, the 2xx we resend until its ACK (§13.3.1.4), the answer we will give.
    var localTag = SIPIdentifiers.tag()
    var okResponse: SIPResponse?
    var acknowledged = false
    var pendingAnswer: SIPAudioAnswer?
    /// An in-dialog INVITE of ours (hold, unhold) in flight.
    var reinvite: (request: SIPRequest, transaction: InviteClientTransaction)?
    /// A hold or resume asked for while a re-INVITE was in flight.
    var pendingHold: Bool?
    /// The ACK of our last answered re-INVITE, by its branch, for a 2xx sent again (§13.2.2.4).
    var reinviteACK: (branch: String, ack: SIPRequest)?
    /// Bumped at each transaction change, so stale timers are ignored.
    var generation = 0

    init(direction: Direction, callID: String, invite: SIPRequest, ua: UserAgent) {
        self.direction = direction
        self.callID = callID
        self.invite = invite
        self.ua = ua
        local = Self.localAudio(ua: ua, port: 0)
    }

    /// An outgoing call to `target`.
    init(outgoing target: SIPURI, headers: [(name: String, value: String)], ua: UserAgent) throws(EndpointError) {
        direction = .outgoing
        self.ua = ua
        callID = SIPIdentifiers.callID(host: ua.settings.localHost.description)
        local = Self.localAudio(ua: ua, port: 0)
        guard let credentials = ua.credentials else { throw EndpointError(code: EndpointError.notLoggedIn, reason: "not logged in") }
        var extra = SIPHeaders()
        for header in headers { extra.add(header.name, header.value) }
        extra.add("Allow", RegistrationConfiguration.allow)
        extra.add("User-Agent", "Parley-Endpoint/1")
        invite = SIPRequest.invite(to: SIPNameAddress(uri: target), from: SIPNameAddress(uri: ua.addressOfRecord(credentials.username)),
                                   callID: callID, contact: ua.contact(user: credentials.username), sentBy: ua.sentBy, headers: extra)
    }

    /// Our audio section's settings: Opus (capped at `maxAverageBitrate`), PCMU, PCMA, RFC 4733 events at 48 and 8 kHz.
    static func localAudio(ua: UserAgent, port: UInt16) -> SIPLocalAudio {
        var opus = SIPAudioCodec.opus
        if let cap = ua.settings.maxAverageBitrate { opus.formatParameters = "useinbandfec=1;maxaveragebitrate=\(cap)" }
        return SIPLocalAudio(address: ua.settings.localAddress, port: port, codecs: [opus, .pcmu, .pcma],
                             encryption: ua.settings.encryption, srtpSuites: [.aesCM128HMACSHA1_80])
    }

    /// Opens the call's RTP socket; keys reach the endpoint as ``CallEvent/digit(_:)``.
    func openAudio() throws(EndpointError) {
        let gate = ua.gate, id = callID
        let audio = CallAudio(device: ua.settings.audioDevice ?? NullAudioDevice()) { digit in
            gate.execute { $0.report(.call(id: id, .digit(digit))) }
        }
        audio.debugLog = ua.settings.debug
        try audio.open(host: ua.settings.localAddress, loop: ua.loop)
        self.audio = audio
        local.port = UInt16(clamping: audio.port)
    }

    func report(_ event: CallEvent) { ua.report(.call(id: callID, event)) }

    // MARK: - Outgoing (RFC 3261 §13.2)

    /// Sends the INVITE with our offer (RFC 3264 §5).
    func start() throws(EndpointError) {
        try openAudio()
        let offer = SIPAudioOffer.make(local)
        self.offer = offer
        invite.body = Array(offer.serialized().utf8)
        invite.headers.set("Content-Type", SIPMediaType.sdp.headerValue)
        report(.calling)
        startClientTransaction()
    }

    private func startClientTransaction() {
        generation += 1
        let transaction = InviteClientTransaction(reliable: ua.settings.transport != .udp, timers: ua.settings.timers)
        clientTransaction = transaction
        runClient(transaction.start(), response: nil)
    }

    private func runClient(_ steps: [TransactionAction], response: SIPResponse?) {
        let current = generation
        for step in steps {
            switch step {
            case .transmitRequest: ua.send(.request(invite))
            case .transmitACK:
                if let response, let ack = invite.makeACK(for: response) { ua.send(.request(ack)) }
            case .startTimer(let timer, let seconds):
                let id = callID
                ua.schedule(after: seconds) { ua in
                    guard let leg = ua.calls[id], leg.generation == current, var transaction = leg.clientTransaction else { return }
                    let steps = transaction.fired(timer)
                    leg.clientTransaction = transaction
                    leg.runClient(steps, response: nil)
                }
            case .deliverResponse:
                if let response { deliver(response) }
            case .timedOut:
                end(.rejected(EndpointError(code: 408, reason: "no answer to the INVITE (RFC 3261 Timer B)")))
            case .transportFailed:
                end(.rejected(EndpointError(code: 503, reason: "the transport failed")))
            case .terminated:
                clientTransaction = nil
            default:
                break
            }
        }
    }

    /// A response to an INVITE of ours: the call's, or a re-INVITE's (`CallLeg+Dialog.swift`).
    func received(_ response: SIPResponse) {
        if let reinvite, response.via?.branch == reinvite.request.via?.branch {
            receivedReinviteResponse(response)
            return
        }
        if response.isSuccess, let reinviteACK, response.via?.branch == reinviteACK.branch {
            ua.send(.request(reinviteACK.ack))
            return
        }
        guard direction == .outgoing, response.via?.branch == invite.via?.branch else { return }
        guard var transaction = clientTransaction else {
            // §13.2.2.4: a 2xx retransmitted after the transaction ended is ACKed again.
            if response.isSuccess, let dialog { ua.send(.request(dialog.ack(for: response, sentBy: ua.sentBy))) }
            return
        }
        lastResponse = response
        let steps = transaction.received(status: response.statusCode)
        clientTransaction = transaction
        runClient(steps, response: response)
    }

    private func deliver(_ response: SIPResponse) {
        let status = response.statusCode
        if response.isProvisional, cancelPending { sendCancel() }
        switch status {
        case 100:
            return
        case 101...199:
            if dialog == nil, response.to?.tag != nil { dialog = try? SIPDialog(uac: invite, response: response) }
            if phase == .calling, status == 180 || status == 183 {
                phase = .ringing
                report(.ringing)
            }
            if !response.body.isEmpty { applyAnswer(response.body) }  // early media (RFC 3960)
        case 200...299:
            answered(response)
        default:
            failed(response)
        }
    }

    private func answered(_ response: SIPResponse) {
        if dialog?.state != .confirmed { dialog = try? SIPDialog(uac: invite, response: response) }
        guard var dialog else { return }
        dialog.receive(response)
        self.dialog = dialog
        ua.send(.request(dialog.ack(for: response, sentBy: ua.sentBy)))
        guard phase != .answered, phase != .ended else { return }
        if !response.body.isEmpty { applyAnswer(response.body) }
        phase = .answered
        report(.answered)
        if cancelPending || cancelled { hangup() }  // our hang-up crossed the 2xx: BYE (§9.1)
    }

    /// The far end's SDP answer to our offer (RFC 3264 §6); audio starts on the first one.
    private func applyAnswer(_ body: [UInt8]) {
        guard let offer, let audio else { return }
        do {
            let parameters = try SIPAudioNegotiation.accept(answerBody: body, toOffer: offer)
            try audio.configure(parameters, maxAverageBitrate: ua.settings.maxAverageBitrate)
            audioStarted = true
        } catch let error as SIPAudioRefusal {
            Log.warning(.core, "endpoint: call \(callID): unusable answer: \(error)")
        } catch {
            Log.warning(.core, "endpoint: call \(callID): \(error)")
        }
    }

    private func failed(_ response: SIPResponse) {
        let status = response.statusCode
        if (status == 401 || status == 407), !authAnswered, let challenge = DigestAnswer.challenge(in: response),
           let names = DigestAnswer.headers(for: status), let credentials = ua.credentials, !cancelled {
            // §22.2: the same INVITE, CSeq + 1, a new branch, with our answer.
            authAnswered = true
            guard let answer = DigestAnswer.credentials(for: challenge, username: credentials.username, password: credentials.password,
                                                        method: "INVITE", uri: invite.uri.description) else { return }
            var next = invite
            next.headers.set("Via", ua.sentBy.via(branch: SIPIdentifiers.branch()).headerValue)
            next.headers.set("CSeq", SIPCSeq((invite.cseq?.number ?? 1) &+ 1, .invite).headerValue)
            next.headers.remove("Authorization")
            next.headers.remove("Proxy-Authorization")
            next.headers.add(names.answer, answer.headerValue)
            invite = next
            dialog = nil
            startClientTransaction()
            return
        }
        if cancelled || status == 487 && cancelPending {
            end(.hungUp(byUs: true))
            return
        }
        let error = EndpointError(code: status, reason: "\(status) \(response.reasonPhrase)")
        end(Self.invalidStatuses.contains(status) ? .invalid(error) : .rejected(error))
    }

    /// Final responses that say the destination is wrong rather than unwilling.
    static let invalidStatuses: Set<Int> = [400, 404, 410, 414, 416, 484, 485, 488, 604]

    /// CANCEL of our INVITE (§9.1): only once a provisional response came.
    func sendCancel() {
        guard !cancelled, let cancel = invite.makeCancel() else { return }
        cancelled = true
        cancelPending = false
        ua.sendRequest(cancel)
    }

    // MARK: - Ending

    /// The call is over: audio stops, the leg is forgotten, `event` is reported.
    func end(_ event: CallEvent) {
        guard phase != .ended else { return }
        phase = .ended
        generation += 1
        audio?.stop()
        if ua.settings.debug, let audio { Log.info(.core, "endpoint audio at the end: sent=\(audio.counts.sent) received=\(audio.counts.received)") }
        ua.forget(self)
        // A final error's transaction waits for its ACK (Timer G resends it, §17.2.1): keep it reachable.
        if serverTransaction != nil { ua.keepFinishing(self) }
        report(event)
    }

    /// Stops everything without reporting (the endpoint is going away).
    func terminate() {
        phase = .ended
        generation += 1
        audio?.stop()
    }

    func transportFailed() {
        end(phase == .answered ? .hungUp(byUs: false) : .rejected(EndpointError(code: 503, reason: "the connection to the server closed")))
    }
}
