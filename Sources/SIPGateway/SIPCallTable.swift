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

/// The SIP calls of the B2BUA, both sides, by Call-ID: calls phones place through the server
/// from their INVITE (`+PhoneCalls`), and calls the server places once their 2xx arrives
/// (`SIPOutboundCalls` hands them over, `+Dialed`). Inside an answered call's dialog both run the
/// same code: the phone's re-INVITEs, UPDATEs, INFO keys and BYE (`+InDialog`), our re-INVITEs,
/// session refreshes and INFO keys (`+OurRequests`), keys and hang-ups from the engine (here), and
/// final errors sent again until their ACK (`+Rejections`).
final class SIPCallTable: Sendable {
    struct Context: Sendable {
        let transport: SIPTransport
        let authenticator: SIPAuthenticator
        let media: SIPMediaBridge
        let voice: VoiceService
        let store: any PlatformStore
        let clock: @Sendable () -> Double
    }

    /// One call, by Call-ID: a phone's INVITE (answered or not), or a dialed call's dialog.
    struct Call {
        var invite: SIPRequest
        var peer: SIPPeer
        var dialog: SIPDialog
        var callSid: String?
        var mediaID: MediaLegID?
        var answerSDP: SessionDescription?
        /// The last final or provisional response, sent again for a retransmitted INVITE.
        var lastResponse: SIPResponse?
        var answered = false
        /// The highest CSeq of an INVITE whose 2xx was acknowledged (the first, then re-INVITEs').
        var acknowledgedCSeq: UInt32 = 0
        var ended = false
        /// A call we placed (`SIPOutboundCalls`), here since its 2xx: not counted against the limits of phones' calls.
        var dialed = false
        /// In-dialog state: hold both ways, re-INVITEs in progress, the session timer
        /// (`SIPCallTable+InDialog.swift`).
        var inDialog = InDialog()
    }

    let context: Context
    let calls = Mutex<[String: Call]>([:])
    /// INVITEs answered with a final error over UDP, sent again until their ACK (Timer G, RFC 3261 §17.2.1).
    let rejections = Mutex<[String: Rejection]>([:])
    /// Calls at once, at most (each holds a media leg and a socket), and from one address.
    let capacity: Int
    let perSource: Int

    init(context: Context, capacity: Int = 1000, perSource: Int = 50) {
        self.context = context
        self.capacity = capacity
        self.perSource = perSource
    }

    var count: Int { calls.withLock { $0.count } }

    // MARK: - Requests

    func handle(_ request: SIPRequest, from peer: SIPPeer) {
        switch request.method {
        case .invite: invite(request, from: peer)
        case .ack: ack(request)
        case .bye: bye(request, from: peer)
        case .cancel: cancel(request, from: peer)
        case .info: info(request, from: peer)
        case .update: update(request, from: peer)
        default: send(SIPResponse(replyingTo: request, statusCode: 405, headers: ["Allow": Self.allow]), to: peer)
        }
    }

    static let allow = "INVITE, ACK, BYE, CANCEL, OPTIONS, REGISTER, INFO, UPDATE"

    /// Keys toward the phone: RFC 4733 events when its answer has telephone-event, else INFO
    /// requests (RFC 6086, `application/dtmf-relay`) one at a time (`w` pauses are RFC 4733's alone).
    func sendDigits(_ digits: String, callID: String) {
        guard let id = calls.withLock({ $0[callID]?.mediaID }) else { return }
        let media = context.media
        Task {
            guard await !media.server.sendDigits(digits, to: id.rawValue) else { return }
            queueInfoKeys(digits, callID: callID)
        }
    }

    func hungUp(callID: String, error: ParleyError?) {
        guard let call = calls.withLock({ $0.removeValue(forKey: callID) }), !call.ended else { return }
        if call.answered {
            var dialog = call.dialog
            send(dialog.bye(sentBy: sentBy(for: call.peer)), to: call.peer)
        } else {
            let status = error.map(Self.status) ?? 480
            reject(call.invite, call.dialog.response(to: call.invite, statusCode: status), peer: call.peer)
        }
    }

    // MARK: - Sending

    func send(_ response: SIPResponse, to peer: SIPPeer) { context.transport.send(.response(response), to: peer) }
    func send(_ request: SIPRequest, to peer: SIPPeer) { context.transport.send(.request(request), to: peer) }

    func sentBy(for peer: SIPPeer) -> SIPSentBy {
        let port = context.transport.localPort(for: peer.transport)
        return SIPSentBy(transport: peer.transport.rawValue, host: SIPHost(parsing: context.transport.configuration.host) ?? .ipv4("127.0.0.1"),
                         port: UInt16(clamping: port))
    }

    func contact(for peer: SIPPeer) -> SIPNameAddress {
        let by = sentBy(for: peer)
        var parameters: [SIPParameter] = []
        if peer.transport != .udp { parameters.append(SIPParameter("transport", peer.transport.rawValue.lowercased())) }
        return SIPNameAddress(uri: SIPURI(isSecure: peer.transport == .tls, user: "parley", host: by.host, port: by.port,
                                          parameters: parameters))
    }
}
