import ParleyCore
import ParleyStore
import Signaling
import TwiML

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

    init(party: (any RemoteParty)?) {
        self.party = party
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

/// A service that places calls the engine dials (the SIP gateway for `<Dial><Sip>`).
package protocol RemoteDialer: Sendable {
    /// The leg's `To` when this dialer takes `noun`; nil when it does not.
    func address(for noun: TwiMLDialNoun) -> String?
    /// Starts calling `request.to`; what happens comes back through `progress`, in order.
    func dial(_ request: RemoteDialRequest, progress: RemoteDialProgress) -> any RemoteParty
}

/// A call the engine asks a `RemoteDialer` to place. The engine ends a leg still ringing after
/// the `<Dial>`'s timeout (its party's `hungUp`, a CANCEL for SIP).
package struct RemoteDialRequest: Sendable {
    package var callSid: String
    package var accountSid: String
    package var from: String
    package var to: String
}

/// How a `RemoteDialer` reports on a call it places (each hops onto the engine).
package struct RemoteDialProgress: Sendable {
    package let alerted: @Sendable () -> Void
    /// Answered, with the leg's media (already on the engine's bridge).
    package let answered: @Sendable (CallMediaAnswer) -> Void
    package let failed: @Sendable (ParleyError) -> Void
    /// The leg's media events.
    package let media: @Sendable (CallMediaEvent) -> Void
}

/// `<Dial>` nouns a `RemoteDialer` takes.
struct RemoteDialRoute: DialRoute {
    let dialer: any RemoteDialer

    func makeLeg(for noun: TwiMLDialNoun, of call: VoiceCall, request: DialRequest, now: Int64) -> CallLeg? {
        guard let to = dialer.address(for: noun) else { return nil }
        let record = CallRecord(sid: SID.make("CA"), accountSid: call.parent.record.accountSid, parentCallSid: call.sid,
                                applicationSid: call.parent.record.applicationSid, from: request.callerId ?? call.parent.record.from,
                                to: to, direction: "outbound-dial", status: .queued, startTime: now, createdAt: now, updatedAt: now)
        let leg = CallLeg(record: record, endpoint: RemoteLegEndpoint(party: nil))
        leg.authToken = call.authToken
        leg.statusCallbackEvents = ["completed"]
        return leg
    }

    func outboundEndpoint(to: String) -> (any LegEndpoint)? { nil }

    func ring(_ leg: CallLeg, of call: VoiceCall, engine: isolated VoiceService) {
        guard let endpoint = leg.endpoint as? RemoteLegEndpoint else { return }
        let legSid = leg.sid
        let progress = RemoteDialProgress(
            alerted: { [weak engine] in Task { await engine?.remoteLegAlerted(legSid) } },
            answered: { [weak engine] media in Task { await engine?.remoteLegAnswered(legSid, media: media) } },
            failed: { [weak engine] error in Task { await engine?.remoteLegFailed(legSid, error: error) } },
            media: { [weak engine] event in engine?.deliverMediaEvent(event) })
        let request = RemoteDialRequest(callSid: legSid, accountSid: leg.record.accountSid, from: leg.record.from, to: leg.record.to)
        endpoint.party = dialer.dial(request, progress: progress)
    }
}
