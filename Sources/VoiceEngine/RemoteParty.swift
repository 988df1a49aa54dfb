import ParleyCore
import ServerMedia
import ParleyStore
import Signaling
import TwiML
import VoiceREST

/// A party the engine reaches through another service rather than its own signaling: a SIP
/// phone behind the SIP gateway. The engine tells it what happens to its leg; the service turns
/// that into its protocol (180, 200 OK, BYE, CANCEL, …). Called on the engine; implementations
/// hand the work to their own threads and return at once.
package protocol RemoteParty: AnyObject, Sendable {
    /// The callee the leg's call dials is being alerted.
    func ringing(callSid: String)
    /// The leg is answered (an incoming leg: send the final answer now).
    func answered(callSid: String)
    /// The engine ended the leg; `error` says why when it did not end normally.
    func hungUp(callSid: String, error: ParleyError?)
    /// Keys the other party pressed.
    func digits(_ digits: String, callSid: String)
    /// The other party put this one on hold (`true`) or resumed it: a SIP phone gets a
    /// re-INVITE with `a=sendonly`, then `a=sendrecv`.
    func held(_ hold: Bool, callSid: String)
}

extension RemoteParty {
    /// Parties that cannot be told of a hold hear hold music only.
    package func held(_ hold: Bool, callSid: String) {}
}

/// A leg whose party is a `RemoteParty`: the engine's `LegEndpoint` for it. A dialed leg gets
/// its party when it rings.
final class RemoteLegEndpoint: LegEndpoint {
    var party: (any RemoteParty)?
    /// The leg answered; a later `cancel` (the engine withdraws the other invitations) is not for it.
    var isAnswered = false
    /// What a leg the engine dials goes to (nil for a caller's leg).
    let target: RemoteDialTarget?

    init(party: (any RemoteParty)?, target: RemoteDialTarget? = nil) {
        self.party = party
        self.target = target
    }

    func calleeRinging(_ leg: CallLeg, engine: isolated VoiceService) { party?.ringing(callSid: leg.sid) }
    func connected(_ leg: CallLeg, engine: isolated VoiceService) { party?.answered(callSid: leg.sid) }
    /// The remote party's media was set up by its service: nothing to send.
    func mediaAnswered(_ leg: CallLeg, sdp: String, engine: isolated VoiceService) {}
    func hangUp(_ leg: CallLeg, error: ParleyError?, engine: isolated VoiceService) { party?.hungUp(callSid: leg.sid, error: error) }
    func cancel(_ leg: CallLeg, code: ParleyError.Code, reason: String, engine: isolated VoiceService) {
        guard !isAnswered else { return }
        party?.hungUp(callSid: leg.sid, error: ParleyError(code, reason: reason))
    }
    func released(_ leg: CallLeg, engine: isolated VoiceService) {}
    func relayDigits(_ digits: String, to leg: CallLeg, engine: isolated VoiceService) { party?.digits(digits, callSid: leg.sid) }
    func relay(_ message: CallMessage, to leg: CallLeg, engine: isolated VoiceService) -> Bool { false }
}

/// A service that places calls the engine dials (the SIP gateway for `<Dial><Sip>`,
/// `<Dial><Number>` and REST-created calls to `sip:` URIs and numbers).
package protocol RemoteDialer: Sendable {
    /// What a leg for `noun` dials when this dialer takes it; nil when it does not.
    func target(for noun: TwiMLDialNoun) -> RemoteDialTarget?
    /// What a REST-created call to `to` (`sip:…`, a number) dials, with keys to press once
    /// answered and the trunk a number takes (nil: the first); nil when `to` is not this dialer's.
    func target(forCallTo to: String, sendDigits: String?, trunk: String?) -> RemoteDialTarget?
    /// Starts calling `request.target`; what happens comes back through `progress`, in order.
    func dial(_ request: RemoteDialRequest, progress: RemoteDialProgress) -> any RemoteParty
}

/// Where a remote leg goes and how: the address the leg's `To` shows, credentials for a far end
/// that challenges (`<Sip username password>`), keys to press once answered (`<Number sendDigits>`).
package struct RemoteDialTarget: Sendable, Equatable {
    package var address: String
    package var username: String?
    package var password: String?
    package var sendDigits: String?

    package init(address: String, username: String? = nil, password: String? = nil, sendDigits: String? = nil) {
        self.address = address
        self.username = username
        self.password = password
        self.sendDigits = sendDigits
    }
}

/// A call the engine asks a `RemoteDialer` to place. The engine ends a leg still ringing after
/// the `<Dial>`'s timeout (its party's `hungUp`, a CANCEL for SIP).
package struct RemoteDialRequest: Sendable {
    package var callSid: String
    package var accountSid: String
    package var from: String
    package var target: RemoteDialTarget
    /// The caller's custom call parameters (a WebRTC client's `params`), for the far end.
    package var parameters: [(String, String)] = []
    /// The codec of the leg this one will be bridged to: offered first, so the two can forward.
    package var preferredCodec: CallAudioCodec?
    package var to: String { target.address }
}

/// How a `RemoteDialer` reports on a call it places (each hops onto the engine).
package struct RemoteDialProgress: Sendable {
    package let alerted: @Sendable () -> Void
    /// Answered, with the leg's media (already on the engine's bridge).
    package let answered: @Sendable (CallMediaAnswer) -> Void
    /// Not reached; the far end's final status code when it answered one (SIP's `SipResponseCode`).
    package let failed: @Sendable (ParleyError, Int?) -> Void
    /// The leg's media events.
    package let media: @Sendable (CallMediaEvent) -> Void
}

/// `<Dial>` nouns a `RemoteDialer` takes, and the REST-created calls whose `To` it takes.
struct RemoteDialRoute: DialRoute {
    let dialer: any RemoteDialer

    func makeLeg(for noun: TwiMLDialNoun, of call: VoiceCall, request: DialRequest, now: Int64) -> CallLeg? {
        guard let target = dialer.target(for: noun) else { return nil }
        let record = CallRecord(sid: SID.make("CA"), accountSid: call.parent.record.accountSid, parentCallSid: call.sid,
                                applicationSid: call.parent.record.applicationSid, from: request.callerId ?? call.parent.record.from,
                                to: target.address, direction: "outbound-dial", status: .queued, startTime: now, createdAt: now, updatedAt: now)
        let leg = CallLeg(record: record, endpoint: RemoteLegEndpoint(party: nil, target: target))
        leg.authToken = call.authToken
        leg.statusCallbackEvents = ["completed"]
        return leg
    }

    func outboundEndpoint(for request: OutboundCallRequest) -> (any LegEndpoint)? {
        dialer.target(forCallTo: request.to, sendDigits: request.sendDigits, trunk: request.trunk).map { RemoteLegEndpoint(party: nil, target: $0) }
    }

    func ring(_ leg: CallLeg, of call: VoiceCall, engine: isolated VoiceService) {
        guard let endpoint = leg.endpoint as? RemoteLegEndpoint, let target = endpoint.target else { return }
        let legSid = leg.sid
        let progress = RemoteDialProgress(
            alerted: { [weak engine] in Task { await engine?.remoteLegAlerted(legSid) } },
            answered: { [weak engine] media in Task { await engine?.remoteLegAnswered(legSid, media: media) } },
            failed: { [weak engine] error, code in Task { await engine?.remoteLegFailed(legSid, error: error, responseCode: code) } },
            media: { [weak engine] event in engine?.deliverMediaEvent(event) })
        // A dialed leg carries its WebRTC caller's custom parameters (Plivo's `X-PH-` headers on SIP).
        let parameters = leg !== call.parent && call.parent.endpoint is ClientLegEndpoint ? call.parent.customParameters : []
        var request = RemoteDialRequest(callSid: legSid, accountSid: leg.record.accountSid, from: leg.record.from,
                                        target: target, parameters: parameters)
        if leg !== call.parent { request.preferredCodec = call.parent.mediaID.flatMap { engine.mediaCodecs[$0] } }
        endpoint.party = dialer.dial(request, progress: progress)
    }
}
