/// What the Conferences REST API reads from the call engine (the engine implements it; the
/// router finds it on its `LiveCallControl`).
package protocol ConferenceDirectory: Sendable {
    /// The account's conferences: live ones, then the ended ones the server remembers, newest first.
    func conferenceSummaries(accountSid: String) async -> [ConferenceSummary]
    /// The participants of a conference: empty once it ended, nil when the account has no such conference.
    func conferenceParticipants(accountSid: String, conferenceSid: String) async -> [ConferenceParticipantSummary]?
    /// Ends a live conference (`Status=completed`): every participant's `<Dial>` completes. The
    /// conference as it is now (already ended ones unchanged); nil when the account has no such conference.
    func endConference(accountSid: String, conferenceSid: String) async -> ConferenceSummary?
    /// Mutes or unmutes, holds or resumes a participant (nil leaves that as it is); nil when the
    /// live conference has no such participant.
    func updateParticipant(accountSid: String, conferenceSid: String, callSid: String, muted: Bool?,
                           hold: Bool?) async -> ConferenceParticipantSummary?
    /// Removes a participant (kick): its `<Dial>` completes and its TwiML goes on. False when the
    /// live conference has no such participant.
    func removeParticipant(accountSid: String, conferenceSid: String, callSid: String) async -> Bool
}

/// What the Conferences REST API shows of a room, live or ended.
package struct ConferenceSummary: Sendable, Equatable {
    package var sid: String
    package var accountSid: String
    package var friendlyName: String
    /// `init`, `in-progress` or `completed`.
    package var status: String
    package var createdAt: Int64
    package var updatedAt: Int64
    package var endReason: String?
    package var endingCallSid: String?

    package init(sid: String, accountSid: String, friendlyName: String, status: String, createdAt: Int64, updatedAt: Int64,
                 endReason: String?, endingCallSid: String?) {
        self.sid = sid
        self.accountSid = accountSid
        self.friendlyName = friendlyName
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.endReason = endReason
        self.endingCallSid = endingCallSid
    }
}

/// What the Participants REST API shows of a call in a live conference.
package struct ConferenceParticipantSummary: Sendable, Equatable {
    package var callSid: String
    package var conferenceSid: String
    package var accountSid: String
    package var label: String?
    package var muted: Bool
    package var hold: Bool
    /// Always `connected`: Twilio's participant status describes the call, which is connected
    /// both in the mix and while waiting for the conference to start.
    package var status: String
    package var startConferenceOnEnter: Bool
    package var endConferenceOnExit: Bool
    package var createdAt: Int64

    package init(callSid: String, conferenceSid: String, accountSid: String, label: String?, muted: Bool, hold: Bool,
                 status: String, startConferenceOnEnter: Bool, endConferenceOnExit: Bool, createdAt: Int64) {
        self.callSid = callSid
        self.conferenceSid = conferenceSid
        self.accountSid = accountSid
        self.label = label
        self.muted = muted
        self.hold = hold
        self.status = status
        self.startConferenceOnEnter = startConferenceOnEnter
        self.endConferenceOnExit = endConferenceOnExit
        self.createdAt = createdAt
    }
}
