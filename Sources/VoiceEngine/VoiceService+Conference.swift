import ParleyCore
import ParleyCrypto
import ParleyStore
import ServerMedia
import TwiML

extension VoiceService {
    /// `<Dial><Conference>name</Conference></Dial>`: the call joins the account's room of that name
    /// (created on first use), as Twilio does:
    /// - audio is mixed on the server; each participant hears everyone else, not itself;
    /// - until a participant with `startConferenceOnEnter` (default true) joins, the others hear
    ///   hold music and not each other (`waitUrl` is not fetched: the built-in hold music plays);
    /// - `endConferenceOnExit` participants end the conference for everyone when they leave;
    /// - leaving by `*` (hangupOnStar), by timeLimit or because the conference ended completes the
    ///   `<Dial>` with DialCallStatus=completed, and the TwiML after it goes on.
    func joinConference(_ call: VoiceCall, options: TwiMLConference, request: DialRequest) {
        let now = wallClock
        let key = ConferenceKey(accountSid: call.parent.record.accountSid, name: options.name)
        let room = conferences[key] ?? openConference(key, now: now)
        let limit = min(max(options.maxParticipants, 2), 250)
        guard room.participants.count < limit else {
            Log.info(.platform, "call \(call.sid): conference \(room.sid) is full (\(limit) participants)")
            return deliver(.dialCompleted(DialOutcome(status: .failed)), to: call)
        }
        // Joining a conference answers the call (also under answerOnBridge: there is nobody to wait for).
        answerParent(call)
        call.mediaGeneration += 1
        let participant = ConferenceParticipant(callSid: call.sid, id: SecureRandom.hex(byteCount: 8), room: room,
                                                options: options, request: request, now: now)
        room.participants.append(participant)
        room.updatedAt = now
        call.conference = participant
        Log.info(.platform, "call \(call.sid) joined conference \(room.sid) (\(room.participants.count) participants)")
        attachConferenceMedia(call)
        if options.startConferenceOnEnter && !room.isStarted {
            startConference(room)
        }
        if room.isStarted, participant.beepsOnEnter { room.mixer.play(ConferenceBeep.enter()) }
        if request.timeLimit > 0 {
            let callSid = call.sid, id = participant.id, seconds = request.timeLimit
            participant.limitTask = Task { [weak self, clock] in
                try? await clock.sleep(for: .seconds(seconds))
                guard !Task.isCancelled else { return }
                await self?.conferenceTimeLimitReached(callSid: callSid, participantID: id)
            }
        }
    }

    private func openConference(_ key: ConferenceKey, now: Int64) -> ConferenceRoom {
        let mixer = ConferenceMixer(sink: media, configuration: player.configuration)
        let room = ConferenceRoom(sid: SID.make("CF"), accountSid: key.accountSid, friendlyName: key.name, mixer: mixer, now: now)
        conferences[key] = room
        player.attach(mixer)
        return room
    }

    /// A participant with startConferenceOnEnter arrived: the waiting ones leave hold music for the mix.
    private func startConference(_ room: ConferenceRoom) {
        room.status = .inProgress
        room.updatedAt = wallClock
        for participant in room.participants where !participant.isOnHold {
            guard let session = participant.mediaID else { continue }
            player.stop(session: session.rawValue)
            room.mixer.setActive(session: session.rawValue, true)
        }
        Log.info(.platform, "conference \(room.sid) started")
    }

    /// Puts the participant's media into the mixer once the caller's media is connected (the
    /// document may arrive first): its tap feeds the mixer, and it hears the room or hold music.
    func attachConferenceMedia(_ call: VoiceCall) {
        guard let participant = call.conference, participant.mediaID == nil, call.mediaConnected,
              let session = call.parent.mediaID else { return }
        let room = participant.room
        let input = ConferenceInput()
        do {
            try room.mixer.add(session: session.rawValue, codec: codec(of: call.parent), input: input, muted: participant.isMuted,
                               active: room.isStarted && !participant.isOnHold)
        } catch {
            Log.warning(.platform, "call \(call.sid): cannot join the conference's mix: \(error)")
            return leaveConference(call, reportToInterpreter: true, status: .failed)
        }
        participant.mediaID = session
        participant.input = input
        if room.isStarted && !participant.isOnHold {
            player.stop(session: session.rawValue)
        } else {
            playShared(configuration.holdMusic ? .holdMusic : .silence, to: call.parent)
        }
        let media = self.media
        enqueueMediaOperation(call) {
            _ = await media.setAudioTap(session) { packet in
                input.receive(packet.payload, sequenceNumber: packet.sequenceNumber)
            }
        }
    }

    /// The call leaves its conference. With `reportToInterpreter` its `<Dial>` completes (the
    /// TwiML goes on); without (the call ended, or a redirect) nothing is reported. `kicked`: it
    /// was removed over REST (the room's end reason says so).
    func leaveConference(_ call: VoiceCall, reportToInterpreter: Bool, status: DialCallStatus = .completed,
                         kicked: Bool = false) {
        guard let participant = call.conference else { return }
        call.conference = nil
        participant.limitTask?.cancel()
        let room = participant.room
        room.participants.removeAll { $0 === participant }
        room.updatedAt = wallClock
        if let session = participant.mediaID {
            room.mixer.remove(session: session.rawValue)
            player.stop(session: session.rawValue)
            let media = self.media
            enqueueMediaOperation(call) { _ = await media.setAudioTap(session, nil) }
        }
        Log.info(.platform, "call \(call.sid) left conference \(room.sid) (\(room.participants.count) remain)")
        if room.status != .completed {
            let how = kicked ? "kicked" : "left"
            if room.participants.isEmpty {
                closeConference(room, reason: "last-participant-\(how)")
            } else if participant.options.endConferenceOnExit {
                room.endingCallSid = call.sid
                closeConference(room, reason: "participant-with-end-conference-on-exit-\(how)")
            } else if room.isStarted, participant.beepsOnExit {
                room.mixer.play(ConferenceBeep.exit())
            }
        }
        if reportToInterpreter {
            deliver(.dialCompleted(DialOutcome(status: status)), to: call)
        }
    }

    /// Ends the conference: every participant left in it leaves, and its `<Dial>` completes.
    func closeConference(_ room: ConferenceRoom, reason: String) {
        guard room.status != .completed else { return }
        room.status = .completed
        room.endReason = reason
        room.updatedAt = wallClock
        if conferences[room.key] === room { conferences[room.key] = nil }
        player.detach(room.mixer)
        rememberEndedConference(room)
        Log.info(.platform, "conference \(room.sid) ended: \(reason)")
        for participant in room.participants {
            guard let call = calls[participant.callSid], call.conference === participant else { continue }
            leaveConference(call, reportToInterpreter: true)
        }
    }

    private func conferenceTimeLimitReached(callSid: String, participantID: String) {
        guard let call = calls[callSid], call.conference?.id == participantID else { return }
        leaveConference(call, reportToInterpreter: true)
    }

    /// A key pressed by a participant: `*` leaves when the `<Dial hangupOnStar>`; other keys are
    /// not TwiML input while in the conference.
    func conferenceDigit(_ digit: Character, call: VoiceCall) {
        guard let participant = call.conference else { return }
        if digit == "*", participant.request.hangupOnStar {
            leaveConference(call, reportToInterpreter: true)
        }
    }

    /// Keeps an ended conference for the REST API (the most recent 500 per server, in memory).
    private func rememberEndedConference(_ room: ConferenceRoom) {
        endedConferences.append(room.summary)
        if endedConferences.count > 500 { endedConferences.removeFirst(endedConferences.count - 500) }
    }
}
