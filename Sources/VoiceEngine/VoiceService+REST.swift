import ParleyCore
import ParleyStore
import ServerMedia
import TwiML
import VoiceREST

/// What the REST API does to live calls and conferences beyond hang-up and redirect
/// (`LiveCallControl`, `ConferenceDirectory`).
extension VoiceService {
    /// `Twiml=` on a live call: its current verb is abandoned (a dial hung up, media stopped, a
    /// recording dropped) and `document` runs from its first verb. Relative URLs in it resolve
    /// against the document it replaces.
    package func replaceTwiML(callSid: String, document: TwiMLResponse) -> Bool {
        guard let call = calls[callSid], call.outbound == nil else { return false }
        if call.interpreter == nil {
            // The first document is still being fetched: this one replaces it.
            call.pendingDocument = (document, url: call.application?.voiceURL ?? "")
            startTwiMLIfReady(call)
        } else {
            deliver(.replace(document), to: call)
        }
        return true
    }

    package func endConference(accountSid: String, conferenceSid: String) -> ConferenceSummary? {
        if let room = liveRoom(accountSid: accountSid, conferenceSid: conferenceSid) {
            closeConference(room, reason: "conference-ended-via-api")
            return room.summary
        }
        return endedConferences.last { $0.sid == conferenceSid && $0.accountSid == accountSid }
    }

    package func updateParticipant(accountSid: String, conferenceSid: String, callSid: String, muted: Bool?,
                           hold: Bool?) -> ConferenceParticipantSummary? {
        guard let room = liveRoom(accountSid: accountSid, conferenceSid: conferenceSid),
              let participant = room.participants.first(where: { $0.callSid == callSid }) else { return nil }
        if let muted, muted != participant.isMuted {
            participant.isMuted = muted
            if let session = participant.mediaID { room.mixer.setMuted(session: session.rawValue, muted) }
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
        guard let session = participant.mediaID, let call = calls[participant.callSid] else { return }
        let room = participant.room
        if participant.isOnHold {
            room.mixer.setActive(session: session.rawValue, false)
            playShared(configuration.holdMusic ? .holdMusic : .silence, to: call.parent)
        } else if room.isStarted {
            player.stop(session: session.rawValue)
            room.mixer.setActive(session: session.rawValue, true)
        }
    }

    package func removeParticipant(accountSid: String, conferenceSid: String, callSid: String) -> Bool {
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
