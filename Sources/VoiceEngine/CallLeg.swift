import ParleyStore

/// One leg of a call: the caller's leg (the parent call) or a leg `<Dial>` created (a child call).
/// Owned by `VoiceService`; never shared across threads.
final class CallLeg {
    /// The row the Calls REST API shows; written through on every status change.
    var record: CallRecord
    /// The signaling session that speaks for this leg's client (nil while an invite rings by push only).
    var sessionID: String?
    /// The leg's media on the media bridge, once it sent an offer.
    var mediaID: MediaLegID?
    /// The client's identity (`bob` for `client:bob`).
    var identity: String?
    /// The caller's own id for the call (`invite.callId`), for the parent leg.
    var clientCallID: String?
    var isOnHold = false
    /// The account's auth token: signs this leg's status callbacks.
    var authToken = ""
    /// Sequence number of the status callbacks sent for this leg (Twilio's `SequenceNumber`).
    var callbackSequence = 0
    /// The leg's parameters given with the invite (custom parameters), in order.
    var customParameters: [(String, String)] = []
    /// Which status callbacks this leg sends (`initiated`, `ringing`, `answered`, `completed`).
    var statusCallbackEvents: [String] = ["initiated", "ringing", "answered", "completed"]
    /// Push bindings an invite for this leg was sent to (they get a cancel push when it stops ringing).
    var pushedBindings: [PushBinding] = []

    init(record: CallRecord) {
        self.record = record
    }

    var sid: String { record.sid }
    var isLive: Bool { !record.status.isFinal }
}
