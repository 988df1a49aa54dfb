import ParleyCore
import ServerMedia
import TwiML
import VoiceREST

/// Rooms are per account and name: two accounts dialing `<Conference>standup</Conference>` never meet.
struct ConferenceKey: Hashable {
    var accountSid: String
    var name: String
}

/// A conference (`CF…`): the calls that dialed the same `<Conference>` name, mixed by one
/// `ConferenceMixer`. Owned by `VoiceService` (actor-isolated there); never shared across threads.
final class ConferenceRoom {
    /// Twilio's conference statuses.
    enum Status: String {
        /// Participants wait (hold music) for one with startConferenceOnEnter.
        case initializing = "init"
        case inProgress = "in-progress"
        case completed
    }

    let sid: String
    let accountSid: String
    let friendlyName: String
    let mixer: ConferenceMixer
    var participants: [ConferenceParticipant] = []
    var status = Status.initializing
    let createdAt: Int64
    var updatedAt: Int64
    /// Why it ended (`participant-with-end-conference-on-exit-left`, `last-participant-left`), as
    /// Twilio's `ReasonConferenceEnded`.
    var endReason: String?
    /// The participant whose endConferenceOnExit ended it (`CallSidEndingConference`).
    var endingCallSid: String?

    init(sid: String, accountSid: String, friendlyName: String, mixer: ConferenceMixer, now: Int64) {
        self.sid = sid
        self.accountSid = accountSid
        self.friendlyName = friendlyName
        self.mixer = mixer
        createdAt = now
        updatedAt = now
    }

    var key: ConferenceKey { ConferenceKey(accountSid: accountSid, name: friendlyName) }
    var isStarted: Bool { status == .inProgress }

    var summary: ConferenceSummary {
        ConferenceSummary(sid: sid, accountSid: accountSid, friendlyName: friendlyName, status: status.rawValue,
                          createdAt: createdAt, updatedAt: updatedAt, endReason: endReason, endingCallSid: endingCallSid)
    }
}

/// A call in a conference: what its `<Conference>` asked for and its place in the mixer.
final class ConferenceParticipant {
    let callSid: String
    /// Tells this stay apart from a later one of the same call (timers check it).
    let id: String
    let room: ConferenceRoom
    let options: TwiMLConference
    /// The `<Dial>` it came from (timeLimit, hangupOnStar; the action is the interpreter's).
    let request: DialRequest
    var isMuted: Bool
    /// Put on hold over REST: out of the mix (neither heard nor hearing it), hearing hold music.
    var isOnHold = false
    let joinedAt: Int64
    /// The media session in the mixer, once the caller's media is connected.
    var mediaID: MediaLegID?
    var input: ConferenceInput?
    var limitTask: Task<Void, Never>?

    init(callSid: String, id: String, room: ConferenceRoom, options: TwiMLConference, request: DialRequest, now: Int64) {
        self.callSid = callSid
        self.id = id
        self.room = room
        self.options = options
        self.request = request
        isMuted = options.muted
        joinedAt = now
    }

    /// `beep`: `true` (default), `false`, `onEnter` or `onExit`.
    var beepsOnEnter: Bool { ["true", "onenter"].contains(options.beep.lowercased()) }
    var beepsOnExit: Bool { ["true", "onexit"].contains(options.beep.lowercased()) }
}

/// The beeps a conference plays to everyone when a participant joins or leaves: two short tones,
/// rising on entry and falling on exit.
enum ConferenceBeep {
    static let lowHertz = 880
    static let highHertz = 1_320
    static let toneSeconds = 0.15

    static func enter() -> SequenceSource {
        SequenceSource([ToneSource(frequencies: [lowHertz], seconds: toneSeconds),
                        ToneSource(frequencies: [highHertz], seconds: toneSeconds)])
    }

    static func exit() -> SequenceSource {
        SequenceSource([ToneSource(frequencies: [highHertz], seconds: toneSeconds),
                        ToneSource(frequencies: [lowHertz], seconds: toneSeconds)])
    }
}

extension ConferenceParticipant {
    var summary: ConferenceParticipantSummary {
        ConferenceParticipantSummary(callSid: callSid, conferenceSid: room.sid, accountSid: room.accountSid,
                                     label: options.participantLabel, muted: isMuted, hold: isOnHold, status: "connected",
                                     startConferenceOnEnter: options.startConferenceOnEnter,
                                     endConferenceOnExit: options.endConferenceOnExit, createdAt: joinedAt)
    }
}
