import Foundation
import ParleyCore
import ParleyStore
import SIP
import SIPWire
import Synchronization
import VoiceEngine

/// The B2BUA of `parley-server --sip`: the SIP side of calls, between SIP phones and the voice
/// engine. Phones' INVITEs become engine calls (`SIPCallTable`), the engine's `<Dial>`s become
/// INVITEs (`SIPOutboundCalls`); once answered, both sides' dialogs live in `SIPCallTable`'s
/// table, so in-dialog requests and responses go there first; the registrar answers the rest.
package final class SIPCallService: Sendable {
    private let inbound = Mutex<SIPCallTable?>(nil)
    private let outbound = Mutex<SIPOutboundCalls?>(nil)

    package init() {}

    /// Serves on `transport`, authenticating with the registrar's credentials and its failure limiter.
    package func attach(transport: SIPTransport, registrar: SIPRegistrarService, media: SIPMediaBridge, voice: VoiceService,
                        store: any PlatformStore, trunks: [SIPTrunk] = []) {
        let context = SIPCallTable.Context(transport: transport, authenticator: registrar.authenticator, media: media,
                                              voice: voice, store: store,
                                              clock: { Date().timeIntervalSince1970 })
        let calls = SIPCallTable(context: context)
        inbound.withLock { $0 = calls }
        let dialer = SIPOutboundCalls(context: .init(transport: transport, media: media, registrar: registrar,
                                                     sentBy: { calls.sentBy(for: $0) }, contact: { calls.contact(for: $0) },
                                                     dialogs: calls, trunks: trunks))
        outbound.withLock { $0 = dialer }
        transport.onOutboundClosed { dialer.connectionClosed($0) }
        Task { await voice.register(dialer: dialer) }
    }

    /// Whether `message` is for calls (INVITE, ACK, BYE, CANCEL and what happens in a dialog).
    package func handles(_ message: SIPMessage) -> Bool {
        guard let request = message.request else { return message.response != nil }
        switch request.method {
        case .invite, .ack, .bye, .cancel, .info, .update, .prack: return true
        default: return false
        }
    }

    package func handle(_ message: SIPMessage, from peer: SIPPeer) {
        if let response = message.response {
            if inbound.withLock({ $0 })?.handle(response, from: peer) == true { return }
            _ = outbound.withLock({ $0 })?.handle(response, from: peer)
            return
        }
        guard let request = message.request, let calls = inbound.withLock({ $0 }) else { return }
        if request.method != .ack, calls.context.authenticator.isBlocked(peer, now: calls.context.clock()) {
            calls.context.transport.send(.response(SIPResponse(replyingTo: request, statusCode: 403)), to: peer)
            return
        }
        calls.handle(request, from: peer)
    }

    /// Calls in progress (for `/metrics`).
    package var activeCalls: Int { (inbound.withLock { $0?.count } ?? 0) + (outbound.withLock { $0?.count } ?? 0) }
}
