import Foundation
import ParleyCore
import ParleyNet
import SDP
import ServerMedia
import SIP
import SIPMedia
import SIPWire
import Synchronization
import TwiML
import VoiceEngine

/// Calls the engine places to SIP (the B2BUA's outgoing side, RFC 3261 §13.2): `<Dial><Sip>`
/// and REST-created calls to an endpoint registered here (its bindings' contacts) or to any SIP
/// URI, `<Dial><Number>` and REST-created calls to numbers through the first trunk. The INVITE
/// carries a SIP media leg's offer, the URI's `X-` headers and a WebRTC caller's parameters as
/// `X-PH-` headers, and is sent again over UDP until a response (Timer A, §17.1.1.2); one 401/407
/// is answered with the `<Sip>`'s or the trunk's credentials (§22.2); 180/183 alert the caller, a
/// 2xx is acknowledged, its answer applied and `<Number sendDigits>` sent; a final error ends the
/// leg with its status; the engine's hang-up before the answer becomes CANCEL. From the 2xx on
/// the dialog belongs to the table phones' calls use (`SIPInboundCalls+Dialed.swift`): re-INVITE,
/// UPDATE, INFO, hold both ways, session timers and BYE run there.
final class SIPOutboundCalls: RemoteDialer, Sendable {
    struct Context: Sendable {
        let transport: SIPTransport
        let media: SIPMediaBridge
        let registrar: SIPRegistrarService
        let sentBy: @Sendable (SIPPeer) -> SIPSentBy
        let contact: @Sendable (SIPPeer) -> SIPNameAddress
        /// The answered-dialog table a call joins at its 2xx.
        let dialogs: SIPInboundCalls
        /// The trunks; numbers go through the first (none: numbers are not this dialer's).
        var trunks: [SIPTrunk] = []
    }

    struct Call {
        var invite: SIPRequest
        var peer: SIPPeer
        var mediaID: MediaLegID
        var progress: RemoteDialProgress
        var target: RemoteDialTarget
        /// The engine's leg.
        var callSid: String
        /// The INVITE was sent again with credentials: a second challenge ends the leg (403).
        var authenticated = false
        /// A provisional response arrived (retransmissions stop), and one above 100 (the caller was alerted).
        var provisional = false
        var alerted = false
    }

    let context: Context
    private let calls = Mutex<[String: Call]>([:])

    init(context: Context) {
        self.context = context
    }

    var count: Int { calls.withLock { $0.count } }

    // MARK: - RemoteDialer

    func target(for noun: TwiMLDialNoun) -> RemoteDialTarget? {
        switch noun {
        case .sip(let sip):
            return RemoteDialTarget(address: sip.uri.trimmingCharacters(in: .whitespaces), username: sip.username, password: sip.password)
        case .number(let number):
            return numberTarget(number.number, sendDigits: number.sendDigits)
        default:
            return nil
        }
    }

    /// A REST-created call: a `sip:`/`sips:` URI as it is, a number through the trunk.
    func target(forCallTo to: String) -> RemoteDialTarget? {
        let to = to.trimmingCharacters(in: .whitespaces)
        if to.lowercased().hasPrefix("sip:") || to.lowercased().hasPrefix("sips:") {
            return (try? SIPURI(parsing: to)) == nil ? nil : RemoteDialTarget(address: to)
        }
        guard to.allSatisfy({ $0.isASCII && ($0.isNumber || " +-().".contains($0)) }) else { return nil }
        return numberTarget(to, sendDigits: nil)
    }

    /// A number at the first trunk: its E.164 digits (a leading +) as a telephone-number user
    /// (RFC 3261 §19.1.6), with the trunk's credentials; nil without a trunk.
    private func numberTarget(_ number: String, sendDigits: String?) -> RemoteDialTarget? {
        let digits = number.filter { $0.isNumber || $0 == "+" }
        guard let trunk = context.trunks.first, digits.count >= 2 else { return nil }
        return RemoteDialTarget(address: trunk.address(forNumber: digits), username: trunk.username, password: trunk.password,
                                sendDigits: sendDigits)
    }

    func dial(_ request: RemoteDialRequest, progress: RemoteDialProgress) -> any RemoteParty {
        let callID = SIPIdentifiers.callID()
        Task { await place(request, callID: callID, progress: progress) }
        return SIPOutboundParty(calls: self, callID: callID)
    }

    private func place(_ request: RemoteDialRequest, callID: String, progress: RemoteDialProgress) async {
        guard let parsed = try? SIPURI(parsing: request.to) else {
            return progress.failed(ParleyError(.notFound, reason: "\(request.to) is not a SIP address"), nil)
        }
        let (target, uriHeaders) = SIPOutboundHeaders.uriHeaders(of: parsed)
        guard let (requestURI, peer) = destination(of: target, accountSid: request.accountSid) else {
            return progress.failed(ParleyError(.notFound, reason: "\(request.to) is not a reachable SIP address"), nil)
        }
        let media: (id: MediaLegID, sdp: String)
        do {
            media = try await context.media.createOffer(preferring: request.preferredCodec, events: progress.media)
        } catch {
            return progress.failed(error, nil)
        }
        guard let offer = try? SessionDescription(parsing: media.sdp) else {
            await context.media.close(media.id)
            return progress.failed(ParleyError(.internalServer, reason: "our offer does not parse"), nil)
        }
        // A trunk's own credentials when the `<Sip>` gives none.
        var dialTarget = request.target
        if dialTarget.username == nil, let trunk = context.trunks.first(where: { $0.serves(target) }) {
            (dialTarget.username, dialTarget.password) = (trunk.username, trunk.password)
        }
        let by = context.sentBy(peer)
        // What we take inside the dialog, and RFC 4028 §7.1: the callee may ask for a session timer.
        let extra = SIPOutboundHeaders.headers([("Allow", SIPInboundCalls.allow), ("Supported", "timer")] + uriHeaders
                                               + SIPOutboundHeaders.callerParameterHeaders(request.parameters))
        let invite = SIPRequest.invite(to: SIPNameAddress(uri: target), from: Self.fromAddress(request.from, host: by.host),
                                       requestURI: .sip(requestURI), callID: callID, contact: context.contact(peer), sentBy: by,
                                       offer: offer, headers: extra)
        calls.withLock { $0[callID] = Call(invite: invite, peer: peer, mediaID: media.id, progress: progress, target: dialTarget,
                                       callSid: request.callSid) }
        // A connection that closed before the call was listed (a refused TLS handshake) is not reported again.
        guard context.transport.isConnected(peer) else {
            return finish(callID: callID, error: Self.closed(peer))
        }
        Log.info(.platform, "SIP call \(callID) for \(request.callSid) to \(requestURI) via \(peer)")
        sendInvite(invite, callID: callID, to: peer)
    }

    /// Sends an INVITE of the call and, over UDP, again until a response (Timer A); over a reliable
    /// transport only Timer B runs (RFC 3261 §17.1.1.2: 64·T1 without a response is a 408).
    private func sendInvite(_ invite: SIPRequest, callID: String, to peer: SIPPeer) {
        send(.request(invite), to: peer)
        guard let cseq = invite.cseq?.number else { return }
        if peer.isReliable {
            retransmit(callID: callID, cseq: cseq, interval: 32, elapsed: 0, resend: false)
        } else {
            retransmit(callID: callID, cseq: cseq, interval: 0.5, elapsed: 0)
        }
    }

    /// Where a URI is reached: a user registered here at its bindings' first contact, else the URI itself.
    private func destination(of uri: SIPURI, accountSid: String) -> (SIPURI, SIPPeer)? {
        var target = uri
        if let user = uri.user,
           let binding = context.registrar.bindings(accountSid: accountSid, user: user, domain: uri.host.description).first,
           let contact = try? SIPURI(parsing: binding.contact) {
            target = contact
            // RFC 7118 §5.3: a contact registered over a WebSocket is reached down that socket alone.
            if let peer = context.transport.webSockets.peer(forSource: binding.source) { return (target, peer) }
        }
        // `sips:` is TLS (RFC 3261 §26.2.2), on 5061 unless the URI says otherwise.
        let transport = target.isSecure ? "tls" : target.transport ?? "udp"
        guard ["udp", "tcp", "tls"].contains(transport),
              let address = try? SocketAddress.resolve(host: target.host.address, port: Int(target.port ?? (transport == "tls" ? 5061 : 5060)))
        else { return nil }
        // TCP and TLS: a connection of our own (no retransmissions over it, Timer B still runs).
        switch transport {
        case "tcp": return (try? context.transport.connect(.tcp, to: address)).map { (target, $0) }
        case "tls": return (try? context.transport.connect(.tls, to: address, serverName: target.host.address)).map { (target, $0) }
        default: return (target, SIPPeer(transport: .udp, address: address))
        }
    }

    /// `client:alice` → `sip:alice@<our host>`; a SIP address as it is.
    static func fromAddress(_ from: String, host: SIPHost) -> SIPNameAddress {
        if let uri = try? SIPURI(parsing: from) { return SIPNameAddress(uri: uri) }
        let user = from.hasPrefix("client:") ? String(from.dropFirst("client:".count)) : from
        let safe = user.filter { $0.isLetter || $0.isNumber || "-_.!~*'()+".contains($0) }
        return SIPNameAddress(uri: SIPURI(user: safe.isEmpty ? "parley" : safe, host: host))
    }

    /// Timer A: the INVITE again at 0.5, 1, 2, … s until a response; Timer B (32 s) gives up (408).
    /// Stops when the call's INVITE is another one (sent again with credentials, CSeq `cseq` + 1).
    private func retransmit(callID: String, cseq: UInt32, interval: Double, elapsed: Double, resend: Bool = true) {
        context.transport.loop.schedule(after: .milliseconds(Int(interval * 1000))) { [self] in
            guard let call = calls.withLock({ $0[callID] }), !call.provisional,
                  call.invite.cseq?.number == cseq else { return }
            guard resend, elapsed + interval < 32 else {
                return finish(callID: callID, error: ParleyError(.requestTimeout, reason: "no response to the INVITE"))
            }
            send(.request(call.invite), to: call.peer)
            retransmit(callID: callID, cseq: cseq, interval: interval * 2, elapsed: elapsed + interval)
        }
    }

    // MARK: - Responses and requests from the callee

    /// A response to one of our INVITEs (false: not ours).
    func handle(_ response: SIPResponse, from peer: SIPPeer) -> Bool {
        guard let callID = response.callID, let call = calls.withLock({ $0[callID] }) else { return false }
        // A BYE's or CANCEL's answer, or one to an INVITE we since sent again with credentials.
        guard response.cseq?.method == .invite, response.cseq?.number == call.invite.cseq?.number else { return true }
        switch response.statusCode {
        case 100..<200:
            // 100 only stops the retransmissions; the first of 180/183 (or any other 1xx) alerts the caller once.
            let alerts = calls.withLock { table -> Bool in
                table[callID]?.provisional = true
                guard response.statusCode > 100, table[callID]?.alerted == false else { return false }
                table[callID]?.alerted = true
                return true
            }
            if alerts { call.progress.alerted() }
        case 200..<300:
            answered(call, callID: callID, response: response)
        case 401, 407:
            if let ack = call.invite.makeACK(for: response) { send(.request(ack), to: call.peer) }
            challenged(call, callID: callID, response: response)
        default:
            if let ack = call.invite.makeACK(for: response) { send(.request(ack), to: call.peer) }
            finish(callID: callID, error: Self.error(for: response), responseCode: Int(response.statusCode))
        }
        return true
    }

    /// A 401/407: answered once with the target's credentials (RFC 3261 §22.2); without
    /// credentials, or challenged again after answering, the leg fails as forbidden.
    private func challenged(_ call: Call, callID: String, response: SIPResponse) {
        let code = Int(response.statusCode)
        guard !call.authenticated, let username = call.target.username, let password = call.target.password else {
            let why = call.authenticated ? "the far end refused our credentials" : "the far end wants credentials and the call has none"
            return finish(callID: callID, error: ParleyError(.forbidden, reason: "\(code) \(response.reasonPhrase): \(why)"), responseCode: code)
        }
        guard let next = SIPOutboundHeaders.authorized(call.invite, after: response, username: username, password: password,
                                                       sentBy: context.sentBy(call.peer)) else {
            return finish(callID: callID, error: ParleyError(.forbidden, reason: "\(code): no digest challenge we can answer"), responseCode: code)
        }
        let current = calls.withLock { table -> Bool in
            guard table[callID] != nil else { return false }
            table[callID]?.invite = next
            table[callID]?.authenticated = true
            table[callID]?.provisional = false
            return true
        }
        guard current else { return }
        Log.info(.platform, "SIP call \(callID): answering a \(code) challenge as \(username)")
        sendInvite(next, callID: callID, to: call.peer)
    }

    /// The 2xx: acknowledged, and the dialog handed to the answered-dialog table (which also
    /// acknowledges the 2xx again if it is repeated, §13.2.2.4).
    private func answered(_ call: Call, callID: String, response: SIPResponse) {
        guard let dialog = try? SIPDialog(uac: call.invite, response: response) else {
            return finish(callID: callID, error: ParleyError(.internalServer, reason: "the 2xx opens no dialog"))
        }
        guard calls.withLock({ $0.removeValue(forKey: callID) }) != nil else { return }
        let ack = dialog.ack(for: response, sentBy: context.sentBy(call.peer))
        context.dialogs.adoptDialed(.init(callID: callID, invite: call.invite, response: response, ack: ack, dialog: dialog,
                                          peer: call.peer, mediaID: call.mediaID, callSid: call.callSid))
        send(.request(ack), to: call.peer)
        let body = response.bodyText
        Task {
            do throws(ParleyError) {
                try await context.media.acceptAnswer(call.mediaID, sdp: body, events: call.progress.media)
                let codec = await context.media.audioCodec(of: call.mediaID) ?? .opus
                call.progress.answered(CallMediaAnswer(id: call.mediaID, sdp: "", codec: codec))
                // `<Number sendDigits>`: RFC 4733 events once answered; `w` pauses 0.5 s, `W` 1 s.
                if let digits = call.target.sendDigits, !digits.isEmpty {
                    let sent = await context.media.server.sendDigits(digits.replacingOccurrences(of: "W", with: "ww"), to: call.mediaID.rawValue)
                    Log.info(.platform, "SIP call \(callID): sendDigits \(digits) " + (sent ? "queued" : "not sent (no telephone-event, or not keys)"))
                }
            } catch {
                hungUp(callID: callID, error: error)
                await context.media.close(call.mediaID)
                call.progress.failed(error, nil)
            }
        }
    }

    /// A TCP/TLS connection we opened closed (refused, a certificate not trusted, the far end
    /// gone): a call on it still unanswered fails at once (31005) instead of waiting for Timer B.
    func connectionClosed(_ peer: SIPPeer) {
        let stranded = calls.withLock { table in table.filter { $0.value.peer == peer }.map(\.key) }
        for callID in stranded {
            finish(callID: callID, error: Self.closed(peer))
        }
    }

    static func closed(_ peer: SIPPeer) -> ParleyError {
        ParleyError(.connection, reason: "the \(peer.transport.rawValue) connection to \(peer.address) closed")
    }

    /// Keys the other party pressed, to the callee as RFC 4733 events.
    func sendDigits(_ digits: String, callID: String) {
        guard let id = calls.withLock({ $0[callID]?.mediaID }) else { return context.dialogs.sendDigits(digits, callID: callID) }
        let media = context.media
        Task { _ = await media.server.sendDigits(digits, to: id.rawValue) }
    }

    /// The engine ended the leg: CANCEL before the answer (§9.1); after it the dialog's table sends BYE.
    func hungUp(callID: String, error: ParleyError?) {
        guard let call = calls.withLock({ $0.removeValue(forKey: callID) }) else {
            return context.dialogs.hungUp(callID: callID, error: error)
        }
        if let cancel = call.invite.makeCancel() { send(.request(cancel), to: call.peer) }
        Task { await context.media.close(call.mediaID) }
    }

    /// The other party held or resumed the callee: a re-INVITE `a=sendonly`/`a=sendrecv` once answered.
    func held(_ hold: Bool, callID: String) { context.dialogs.holdPhone(hold, callID: callID) }

    private func finish(callID: String, error: ParleyError, responseCode: Int? = nil) {
        guard let call = calls.withLock({ $0.removeValue(forKey: callID) }) else { return }
        Task { await context.media.close(call.mediaID) }
        call.progress.failed(error, responseCode)
    }

    /// The engine's error for a final SIP failure (the call's status follows from it: 31486 busy,
    /// 31480 and 31408 no-answer, others failed); the table is in docs/sip.md.
    static func error(for response: SIPResponse) -> ParleyError {
        let reason = "\(response.statusCode) \(response.reasonPhrase)"
        return switch response.statusCode {
        case 486, 600: ParleyError(.busyHere, reason: reason)
        case 404, 480, 604: ParleyError(.temporarilyUnavailable, reason: reason)
        case 408: ParleyError(.requestTimeout, reason: reason)
        case 603: ParleyError(.decline, reason: reason)
        case 487: ParleyError(.requestTerminated, reason: reason)
        default: ParleyError(.connection, reason: reason)
        }
    }

    private func send(_ message: SIPMessage, to peer: SIPPeer) { context.transport.send(message, to: peer) }
}

/// The engine's view of a SIP callee we dialed.
final class SIPOutboundParty: RemoteParty {
    private let calls: SIPOutboundCalls
    private let callID: String

    init(calls: SIPOutboundCalls, callID: String) {
        self.calls = calls
        self.callID = callID
    }

    func ringing(callSid: String) {}
    func answered(callSid: String) {}
    func hungUp(callSid: String, error: ParleyError?) { calls.hungUp(callID: callID, error: error) }
    func digits(_ digits: String, callSid: String) { calls.sendDigits(digits, callID: callID) }
    func held(_ hold: Bool, callSid: String) { calls.held(hold, callID: callID) }
}
