import JSONWire

// JSON fields of the room payloads a server sends (docs/signaling.md, "Rooms").

extension RoomJoined {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        let roomV = try f.roomVersion()
        guard let room = try f.optionalObject("room") else { throw f.malformed("missing field \"room\"") }
        var participants: [RoomParticipantInfo] = []
        for p in try f.objectArray("participants", limit: RoomProtocol.maxParticipants) {
            participants.append(try RoomParticipantInfo(reading: p))
        }
        self.init(roomV: roomV, room: try RoomInfo(reading: room), participant: try f.participant("participant"),
                  participants: participants,
                  answer: try f.optionalString("answer", .nonEmptyText, limit: SignalingLimits.maxSDPBytes),
                  published: try f.published(), subscriptions: try f.subscriptions(), iceServers: try f.iceServers())
    }

    func write(into o: inout JSONObject) {
        o.set("roomV", roomV)
        o["room"] = .object(room.json)
        o["participant"] = .object(participant.json)
        o.set("participants", objects: participants.map(\.json))
        o.set("answer", answer)
        o.set("published", objects: published.map(\.json))
        o.set("subscriptions", objects: subscriptions.map(\.json))
        if !iceServers.isEmpty { o.set("iceServers", objects: iceServers.map(\.json)) }
    }
}

extension RoomAnswer {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(answer: try f.sdp("answer"), published: try f.published(), subscriptions: try f.subscriptions())
    }

    func write(into o: inout JSONObject) {
        o.set("answer", answer)
        o.set("published", objects: published.map(\.json))
        o.set("subscriptions", objects: subscriptions.map(\.json))
    }
}

extension RoomRenegotiate {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(audio: try f.int("audio", in: 0...RoomProtocol.maxSlots), video: try f.int("video", in: 0...RoomProtocol.maxSlots))
    }

    func write(into o: inout JSONObject) {
        o.set("audio", audio)
        o.set("video", video)
    }
}

extension RoomParticipantConnected {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(participant: try f.participant("participant"))
    }

    func write(into o: inout JSONObject) { o["participant"] = .object(participant.json) }
}

extension RoomTrackPublished {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        guard let track = try f.optionalObject("track") else { throw f.malformed("missing field \"track\"") }
        let info = try RoomTrackInfo(reading: track)
        guard info.sid != nil else { throw track.malformed("missing field \"sid\"") }
        self.init(participantSid: try f.string("participantSid"), track: info)
    }

    func write(into o: inout JSONObject) {
        o.set("participantSid", participantSid)
        o["track"] = .object(track.json)
    }
}

extension RoomTrackUnpublished {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(participantSid: try f.string("participantSid"), trackSid: try f.string("trackSid"))
    }

    func write(into o: inout JSONObject) {
        o.set("participantSid", participantSid)
        o.set("trackSid", trackSid)
    }
}

extension RoomTrackChanged {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(participantSid: try f.string("participantSid"), trackSid: try f.string("trackSid"), enabled: try f.bool("enabled"))
    }

    func write(into o: inout JSONObject) {
        o.set("participantSid", participantSid)
        o.set("trackSid", trackSid)
        o.set("enabled", bool: enabled)
    }
}

extension RoomSubscribed {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(trackSid: try f.string("trackSid"), mid: try f.string("mid"), participantSid: try f.string("participantSid"))
    }

    func write(into o: inout JSONObject) {
        o.set("trackSid", trackSid)
        o.set("mid", mid)
        o.set("participantSid", participantSid)
    }
}

extension RoomSubscriptionFailed {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(trackSid: try f.string("trackSid"), code: try f.int("code"),
                  message: try f.string("message", .text, limit: SignalingLimits.maxReasonBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("trackSid", trackSid)
        o.set("code", code)
        o.set("message", message)
    }
}

extension RoomDominantSpeaker {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(participantSid: try f.optionalString("participantSid"))
    }

    /// `null` when nobody is the dominant speaker.
    func write(into o: inout JSONObject) { o["participantSid"] = participantSid.map(JSONValue.string) ?? .null }
}

extension RoomNetworkQuality {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        var levels: [RoomNetworkQualityLevel] = []
        for l in try f.objectArray("levels", limit: RoomProtocol.maxLevels) {
            levels.append(RoomNetworkQualityLevel(participantSid: try l.string("participantSid"), level: try l.int("level", in: 0...5)))
        }
        self.init(levels: levels)
    }

    func write(into o: inout JSONObject) {
        o.set("levels", objects: levels.map { level in
            var l = JSONObject()
            l.set("participantSid", level.participantSid)
            l.set("level", level.level)
            return l
        })
    }
}

extension RoomRecording {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(isRecording: try f.bool("isRecording"))
    }

    func write(into o: inout JSONObject) { o.set("isRecording", bool: isRecording) }
}

extension RoomDisconnected {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(code: try f.int("code"), message: try f.string("message", .text, limit: SignalingLimits.maxReasonBytes))
    }

    func write(into o: inout JSONObject) {
        o.set("code", code)
        o.set("message", message)
    }
}
