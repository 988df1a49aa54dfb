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
/// and REST-created calls to an endpoint registered here (every binding's contact rung at once,
/// as a forking proxy would, §16.6) or to any SIP URI, `<Dial><Number>` and REST-created calls to
/// numbers through a trunk (`byoc`/`Byoc` names one; the first otherwise). Every INVITE of a call
/// (a fork) has the call's Call-ID, From tag and media offer and its own Request-URI and branch,
/// and carries the URI's `X-` headers and a WebRTC caller's parameters as `X-PH-` headers; over UDP
/// it is sent again until a response (Timer A, §17.1.1.2). Each fork answers one 401/407 with the
/// `<Sip>`'s or the trunk's credentials (§22.2); the first 180/183 alerts the caller; the first 2xx
/// wins (acknowledged, its answer applied, `sendDigits` sent) and the other forks are cancelled
/// (`SIPOutboundCalls+Forks.swift`); the call fails when every fork has failed, or at once on a
/// 6xx (§16.7), with the best final status; the engine's hang-up before the answer becomes CANCEL.
/// From the 2xx on the dialog belongs to the table phones' calls use (`SIPCallTable+Dialed.swift`):
/// re-INVITE, UPDATE, INFO, hold both ways, session timers and BYE run there.
final class SIPOutboundCalls: RemoteDialer, Sendable {
    struct Context: Sendable {
        let transport: SIPTransport
        let media: SIPMediaBridge
        let registrar: SIPRegistrarService
        let sentBy: @Sendable (SIPPeer) -> SIPSentBy
        let contact: @Sendable (SIPPeer) -> SIPNameAddress
        /// The answered-dialog table a call joins at its 2xx.
        let dialogs: SIPCallTable
        /// The trunks; numbers go through the one named, else the first (none: numbers are not this dialer's).
        var trunks: [SIPTrunk] = []
    }

    /// One INVITE of a call, to one contact.
    struct Fork {
        var invite: SIPRequest
        var peer: SIPPeer
        /// The INVITE was sent again with credentials: a second challenge ends the fork (403).
        var authenticated = false
        /// A provisional response arrived: retransmissions stop, and a CANCEL may be sent (§9.1).
        var provisional = false
        /// How the fork failed, once it did.
        var failure: Failure?
        var branch: String? { invite.via?.branch }
    }

    /// A fork's end: the engine's error and the far end's final status, when it sent one.
    struct Failure {
        var error: ParleyError
        var code: Int?
    }

    struct Call {
        var forks: [Fork]
        var mediaID: MediaLegID
        var progress: RemoteDialProgress
        var target: RemoteDialTarget
        /// The engine's leg.
        var callSid: String
        /// The caller was alerted (by the first 1xx above 100 of any fork).
        var alerted = false
    }

    /// A registered user's contacts rung at once, at most.
    static let maxForks = 8

    let context: Context
    let calls = Mutex<[String: Call]>([:])
    /// Forks that lost (another answered, or the engine hung up), by branch, until their INVITE
    /// transaction is over (64·T1): a late 1xx gets the CANCEL it was owed, a late 2xx is
    /// acknowledged and ended with BYE (§15), a late failure is acknowledged.
    let abandoned = Mutex<[String: AbandonedFork]>([:])

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
            return numberTarget(number.number, sendDigits: number.sendDigits, trunk: number.byoc)
        default:
            return nil
        }
    }

    /// A REST-created call: a `sip:`/`sips:` URI as it is, a number through a trunk.
    func target(forCallTo to: String, sendDigits: String?, trunk: String?) -> RemoteDialTarget? {
        let to = to.trimmingCharacters(in: .whitespaces)
        if to.lowercased().hasPrefix("sip:") || to.lowercased().hasPrefix("sips:") {
            return (try? SIPURI(parsing: to)) == nil ? nil : RemoteDialTarget(address: to, sendDigits: sendDigits)
        }
        return numberTarget(to, sendDigits: sendDigits, trunk: trunk)
    }

    /// A number at the trunk named `name` (nil: the first): its digits with any leading `+` as a
    /// telephone-number user (RFC 3261 §19.1.6), with the trunk's credentials; nil without that
    /// trunk, or when `number` is not a number.
    private func numberTarget(_ number: String, sendDigits: String?, trunk name: String?) -> RemoteDialTarget? {
        guard let digits = PhoneNumber.dialed(number),
              let trunk = name.map({ name in context.trunks.first { $0.name == name } }) ?? context.trunks.first else { return nil }
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
        let destinations = destinations(of: target, accountSid: request.accountSid)
        guard !destinations.isEmpty else {
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
        // What we take inside the dialog, and RFC 4028 §7.1: the callee may ask for a session timer.
        let extra = SIPOutboundHeaders.headers([("Allow", SIPCallTable.allow), ("Supported", "timer")] + uriHeaders
                                               + SIPOutboundHeaders.callerParameterHeaders(request.parameters))
        let fromTag = SIPIdentifiers.tag()
        let forks = destinations.map { requestURI, peer in
            let by = context.sentBy(peer)
            return Fork(invite: SIPRequest.invite(to: SIPNameAddress(uri: target), from: Self.fromAddress(request.from, host: by.host),
                                                  requestURI: .sip(requestURI), fromTag: fromTag, callID: callID,
                                                  contact: context.contact(peer), sentBy: by, offer: offer, headers: extra),
                        peer: peer)
        }
        calls.withLock { $0[callID] = Call(forks: forks, mediaID: media.id, progress: progress, target: dialTarget, callSid: request.callSid) }
        for fork in forks {
            // A connection that closed before the call was listed (a refused TLS handshake) is not reported again.
            guard context.transport.isConnected(fork.peer) else {
                forkFailed(callID: callID, branch: fork.branch, Failure(error: Self.closed(fork.peer)))
                continue
            }
            Log.info(.platform, "SIP call \(callID) for \(request.callSid) to \(fork.invite.uri) via \(fork.peer)")
            sendInvite(fork.invite, callID: callID, to: fork.peer)
        }
    }

    /// Sends an INVITE of the call and, over UDP, again until a response (Timer A); over a reliable
    /// transport only Timer B runs (RFC 3261 §17.1.1.2: 64·T1 without a response is a 408).
    func sendInvite(_ invite: SIPRequest, callID: String, to peer: SIPPeer) {
        send(.request(invite), to: peer)
        guard let branch = invite.via?.branch else { return }
        if peer.isReliable {
            retransmit(callID: callID, branch: branch, interval: 32, elapsed: 0, resend: false)
        } else {
            retransmit(callID: callID, branch: branch, interval: 0.5, elapsed: 0)
        }
    }

    /// Where a URI is reached: a user registered here at each binding's contact (at most
    /// `maxForks`), else the URI itself.
    private func destinations(of uri: SIPURI, accountSid: String) -> [(SIPURI, SIPPeer)] {
        if let user = uri.user {
            let bindings = context.registrar.bindings(accountSid: accountSid, user: user, domain: uri.host.description)
            if !bindings.isEmpty {
                return bindings.prefix(Self.maxForks).compactMap { binding in
                    guard let contact = try? SIPURI(parsing: binding.contact) else { return nil }
                    // RFC 7118 §5.3: a contact registered over a WebSocket is reached down that socket alone.
                    if let peer = context.transport.webSockets.peer(forSource: binding.source) { return (contact, peer) }
                    return route(contact).map { (contact, $0) }
                }
            }
        }
        return route(uri).map { [(uri, $0)] } ?? []
    }

    /// The peer a URI is sent to: `sips:` is TLS (RFC 3261 §26.2.2), on 5061 unless the URI says
    /// otherwise; TCP and TLS get a connection of our own (no retransmissions over it, Timer B still runs).
    private func route(_ target: SIPURI) -> SIPPeer? {
        let transport = target.isSecure ? "tls" : target.transport ?? "udp"
        guard ["udp", "tcp", "tls"].contains(transport),
              let address = try? SocketAddress.resolve(host: target.host.address, port: Int(target.port ?? (transport == "tls" ? 5061 : 5060)))
        else { return nil }
        switch transport {
        case "tcp": return try? context.transport.connect(.tcp, to: address)
        case "tls": return try? context.transport.connect(.tls, to: address, serverName: target.host.address)
        default: return SIPPeer(transport: .udp, address: address)
        }
    }

    /// `client:alice` → `sip:alice@<our host>`; a SIP address as it is.
    static func fromAddress(_ from: String, host: SIPHost) -> SIPNameAddress {
        if let uri = try? SIPURI(parsing: from) { return SIPNameAddress(uri: uri) }
        let user = from.hasPrefix("client:") ? String(from.dropFirst("client:".count)) : from
        let safe = user.filter { $0.isLetter || $0.isNumber || "-_.!~*'()+".contains($0) }
        return SIPNameAddress(uri: SIPURI(user: safe.isEmpty ? "parley" : safe, host: host))
    }

    func send(_ message: SIPMessage, to peer: SIPPeer) { context.transport.send(message, to: peer) }
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
