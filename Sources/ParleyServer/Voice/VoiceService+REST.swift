import ParleyCore

/// What the REST API does to live conferences (`ConferenceDirectory`).
extension VoiceService {
    func endConference(accountSid: String, conferenceSid: String) -> ConferenceSummary? {
        if let room = liveRoom(accountSid: accountSid, conferenceSid: conferenceSid) {
            closeConference(room, reason: "conference-ended-via-api")
            return room.summary
        }
        return endedConferences.last { $0.sid == conferenceSid && $0.accountSid == accountSid }
    }

    func updateParticipant(accountSid: String, conferenceSid: String, callSid: String, muted: Bool?,
                           hold: Bool?) -> ConferenceParticipantSummary? {
        guard let room = liveRoom(accountSid: accountSid, conferenceSid: conferenceSid),
              let participant = room.participants.first(where: { $0.callSid == callSid }) else { return nil }
        if let muted, muted != participant.isMuted {
            participant.isMuted = muted
            if let session = participant.mediaSessionID { room.mixer.setMuted(session: session, muted) }
        }
        if let hold, hold != participant.isOnHold {
            participant.isOnHold = hold
            setConferenceHold(participant)
        }
        room.updatedAt = wallClock
        return participant.summary
    }

    /// On hold: out of the mix, hearing hold music (or silence). Resumed: back in the mix, or
    /// still hearing the waiting music if the conference has not started.
    private func setConferenceHold(_ participant: ConferenceParticipant) {
        guard let session = participant.mediaSessionID, let call = calls[participant.callSid] else { return }
        let room = participant.room
        if participant.isOnHold {
            room.mixer.setActive(session: session, false)
            playShared(configuration.holdMusic ? .holdMusic : .silence, to: call.parent)
        } else if room.isStarted {
            player.stop(session: session)
            room.mixer.setActive(session: session, true)
        }
    }

    func removeParticipant(accountSid: String, conferenceSid: String, callSid: String) -> Bool {
        guard let room = liveRoom(accountSid: accountSid, conferenceSid: conferenceSid),
              room.participants.contains(where: { $0.callSid == callSid }),
              let call = calls[callSid], call.conference?.room === room else { return false }
        leaveConference(call, reportToInterpreter: true, kicked: true)
        return true
    }

    private func liveRoom(accountSid: String, conferenceSid: String) -> ConferenceRoom? {
        conferences.values.first { $0.sid == conferenceSid && $0.accountSid == accountSid }
    }
}
