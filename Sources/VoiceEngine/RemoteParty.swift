import ParleyCore
import Signaling

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
}

/// A leg whose party is a `RemoteParty`: the engine's `LegEndpoint` for it.
final class RemoteLegEndpoint: LegEndpoint {
    let party: any RemoteParty

    init(party: any RemoteParty) {
        self.party = party
    }

    func calleeRinging(_ leg: CallLeg, engine: isolated VoiceService) { party.ringing(callSid: leg.sid) }
    func connected(_ leg: CallLeg, engine: isolated VoiceService) { party.answered(callSid: leg.sid) }
    /// The remote party's media was set up before the engine saw the leg: nothing to send.
    func mediaAnswered(_ leg: CallLeg, sdp: String, engine: isolated VoiceService) {}
    func hangUp(_ leg: CallLeg, error: ParleyError?, engine: isolated VoiceService) { party.hungUp(callSid: leg.sid, error: error) }
    func cancel(_ leg: CallLeg, code: ParleyError.Code, reason: String, engine: isolated VoiceService) {
        party.hungUp(callSid: leg.sid, error: ParleyError(code, reason: reason))
    }
    func released(_ leg: CallLeg, engine: isolated VoiceService) {}
    func relayDigits(_ digits: String, to leg: CallLeg, engine: isolated VoiceService) { party.digits(digits, callSid: leg.sid) }
    func relay(_ message: CallMessage, to leg: CallLeg, engine: isolated VoiceService) -> Bool { false }
}
