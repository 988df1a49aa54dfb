/// What the Conferences REST API reads from the call engine (`VoiceService` implements it; the
/// router finds it on its `LiveCallControl`).
protocol ConferenceDirectory: Sendable {
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

extension VoiceService: ConferenceDirectory {}

extension VoiceService {
    /// The account's conferences, live ones first, then the ended ones this server remembers
    /// (newest first).
    func conferenceSummaries(accountSid: String) -> [ConferenceSummary] {
        let live = conferences.values.filter { $0.accountSid == accountSid }.map(\.summary).sorted { $0.createdAt > $1.createdAt }
        return live + endedConferences.filter { $0.accountSid == accountSid }.reversed()
    }

    /// The participants of a live conference (empty for an ended one); nil for an unknown one.
    func conferenceParticipants(accountSid: String, conferenceSid: String) -> [ConferenceParticipantSummary]? {
        if let room = conferences.values.first(where: { $0.sid == conferenceSid && $0.accountSid == accountSid }) {
            return room.participants.map(\.summary)
        }
        return endedConferences.contains { $0.sid == conferenceSid && $0.accountSid == accountSid } ? [] : nil
    }
}
