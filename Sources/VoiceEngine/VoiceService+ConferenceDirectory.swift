import VoiceREST

extension VoiceService: ConferenceDirectory {}

extension VoiceService {
    /// The account's conferences, live ones first, then the ended ones this server remembers
    /// (newest first).
    package func conferenceSummaries(accountSid: String) -> [ConferenceSummary] {
        let live = conferences.values.filter { $0.accountSid == accountSid }.map(\.summary).sorted { $0.createdAt > $1.createdAt }
        return live + endedConferences.filter { $0.accountSid == accountSid }.reversed()
    }

    /// The participants of a live conference (empty for an ended one); nil for an unknown one.
    package func conferenceParticipants(accountSid: String, conferenceSid: String) -> [ConferenceParticipantSummary]? {
        if let room = conferences.values.first(where: { $0.sid == conferenceSid && $0.accountSid == accountSid }) {
            return room.participants.map(\.summary)
        }
        return endedConferences.contains { $0.sid == conferenceSid && $0.accountSid == accountSid } ? [] : nil
    }
}
