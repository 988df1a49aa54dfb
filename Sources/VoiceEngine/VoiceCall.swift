import ParleyCore
import ParleyStore
import PlatformCore
import ServerMedia
import TwiML

/// A call the server is handling: the caller's leg, the TwiML it runs, and what `<Dial>` started.
/// Owned by `VoiceService` (actor-isolated there); never shared across threads.
final class VoiceCall {
    let parent: CallLeg
    /// The account's auth token, which signs this call's webhooks (updated when it is rotated).
    var authToken: String
    /// The caller's unit of its identity's and key's call quota, given back when the call ends.
    var quotaLease: QuotaLease?
    let application: Application?
    var interpreter: TwiMLInterpreter?
    /// The document to start with once the caller's media is connected.
    var pendingDocument: (TwiMLResponse, url: String)?
    var mediaConnected = false
    /// Playback prepared before the caller's media connected; started when it does.
    var pendingPlayback: (generation: Int, source: any AudioSource)?
    /// A `<Record>` that began before the caller's media connected; started when it does.
    var pendingRecord: RecordRequest?
    var dial: DialOperation?
    /// Bumped whenever playback starts or stops, so a stale "finished" is ignored.
    var mediaGeneration = 0
    /// Bumped whenever the interpreter's timer is rescheduled.
    var timerGeneration = 0
    var timerTask: Task<Void, Never>?
    /// The tail of this call's media-server operations, which run in order.
    var mediaOperations: Task<Void, Never>?
    /// Why the call failed to connect, when the document ended right after a failed `<Dial>` and
    /// the caller was never answered (answerOnBridge or direct routing).
    var unansweredDialError: ParleyError?
    var recording: ActiveRecording?
    /// The conference the call's `<Dial><Conference>` joined.
    var conference: ConferenceParticipant?
    /// A call created over REST while it rings its callee (nil once answered or ended).
    var outbound: OutboundRinging?

    init(parent: CallLeg, authToken: String, application: Application?) {
        self.parent = parent
        self.authToken = authToken
        self.application = application
    }

    var sid: String { parent.sid }
    var isAnswered: Bool { parent.record.answerTime != nil }
}

/// The legs a `<Dial>` rings, and the one that answered.
final class DialOperation {
    let request: DialRequest
    var children: [CallLeg]
    var bridged: CallLeg?
    var ringTask: Task<Void, Never>?
    var limitTask: Task<Void, Never>?
    var ringingSent = false
    /// `<Dial record>`: both legs, from answer.
    var recording: DialRecording?
    let generation: Int

    init(request: DialRequest, children: [CallLeg], generation: Int) {
        self.request = request
        self.children = children
        self.generation = generation
    }

    func child(_ sid: String) -> CallLeg? { children.first { $0.sid == sid } }
}
