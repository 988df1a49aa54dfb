import ParleyCore
import ParleyStore
import Signaling

/// One leg of a call: the caller's leg (the parent call) or a leg `<Dial>` created (a child call).
/// Holds what every kind of leg has; who the party is and how to reach it is its `endpoint`.
/// Owned by `VoiceService`; never shared across threads.
final class CallLeg {
    /// The row the Calls REST API shows; written through on every status change.
    var record: CallRecord
    /// The party's side of the leg, defined by the route that carries it (`ClientLegEndpoint`).
    let endpoint: any LegEndpoint
    /// The leg's media on the media bridge, once it sent an offer.
    var mediaID: MediaLegID?
    var isOnHold = false
    /// The account's auth token: signs this leg's status callbacks.
    var authToken = ""
    /// Sequence number of the status callbacks sent for this leg (Twilio's `SequenceNumber`).
    var callbackSequence = 0
    /// The leg's parameters given with the invite (custom parameters), in order.
    var customParameters: [(String, String)] = []
    /// Which status callbacks this leg sends (`initiated`, `ringing`, `answered`, `completed`).
    var statusCallbackEvents: [String] = ["initiated", "ringing", "answered", "completed"]

    init(record: CallRecord, endpoint: any LegEndpoint) {
        self.record = record
        self.endpoint = endpoint
    }

    var sid: String { record.sid }
    var isLive: Bool { !record.status.isFinal }
}

/// The party's side of a leg: what the engine tells the party about its call. Each `DialRoute`
/// defines its own (`ClientLegEndpoint` speaks signaling; a SIP leg would speak SIP), so a new kind
/// of leg adds a type, not a branch in the engine. Owned by its leg; runs on the engine.
protocol LegEndpoint: AnyObject {
    /// The callee the leg's call dials is being alerted (told to the caller's leg, once).
    func calleeRinging(_ leg: CallLeg, engine: isolated VoiceService)
    /// The leg is answered.
    func connected(_ leg: CallLeg, engine: isolated VoiceService)
    /// The answer to the leg's media offer (SDP) is ready.
    func mediaAnswered(_ leg: CallLeg, sdp: String, engine: isolated VoiceService)
    /// The engine ended the leg; `error` says why when it did not end normally.
    func hangUp(_ leg: CallLeg, error: ParleyError?, engine: isolated VoiceService)
    /// The leg stops ringing: its invitation is withdrawn wherever it went.
    func cancel(_ leg: CallLeg, code: ParleyError.Code, reason: String, engine: isolated VoiceService)
    /// The leg is over: the endpoint forgets it.
    func released(_ leg: CallLeg, engine: isolated VoiceService)
    /// Keys the other party pressed, relayed to this one.
    func relayDigits(_ digits: String, to leg: CallLeg, engine: isolated VoiceService)
    /// A call message from the other party; false when this party cannot receive one.
    func relay(_ message: CallMessage, to leg: CallLeg, engine: isolated VoiceService) -> Bool
}
