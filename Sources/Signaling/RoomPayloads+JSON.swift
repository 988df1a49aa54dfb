import JSONWire
import ParleyCore

// JSON fields of the room payloads (docs/signaling.md, "Rooms").

extension SignalingFieldReader {
    /// `roomV`: the room family version; any other than `RoomProtocol.version` is refused with 31426.
    func roomVersion() throws(SignalingError) -> Int {
        let version = try int("roomV")
        guard version == RoomProtocol.version else {
            throw bad("\"roomV\" \(version) is not supported (this server speaks \(RoomProtocol.version))", code: .upgradeRequired)
        }
        return version
    }

    func sdp(_ key: String) throws(SignalingError) -> String {
        try string(key, .nonEmptyText, limit: SignalingLimits.maxSDPBytes)
    }

    func tracks(_ key: String = "tracks") throws(SignalingError) -> [RoomTrackInfo] {
        var result: [RoomTrackInfo] = []
        for track in try objectArray(key, limit: RoomProtocol.maxTracks) { result.append(try RoomTrackInfo(reading: track)) }
        return result
    }

    func participant(_ key: String) throws(SignalingError) -> RoomParticipantInfo {
        guard let inner = try optionalObject(key) else { throw malformed("missing field \"\(key)\"") }
        return try RoomParticipantInfo(reading: inner)
    }

    func published(optional: Bool = false) throws(SignalingError) -> [RoomPublishedTrack] {
        var result: [RoomPublishedTrack] = []
        for p in try objectArray("published", limit: RoomProtocol.maxTracks, optional: optional) {
            result.append(RoomPublishedTrack(mid: try p.string("mid"), trackSid: try p.string("trackSid")))
        }
        return result
    }

    func subscriptions() throws(SignalingError) -> [RoomSubscription] {
        var result: [RoomSubscription] = []
        for s in try objectArray("subscriptions", limit: RoomProtocol.maxTracks * RoomProtocol.maxParticipants) {
            result.append(RoomSubscription(mid: try s.string("mid"), trackSid: try s.string("trackSid"),
                                           participantSid: try s.string("participantSid")))
        }
        return result
    }
}

extension JSONObject {
    mutating func set(_ key: String, bool: Bool?) {
        if let bool { self[key] = .bool(bool) }
    }

    mutating func set(_ key: String, objects: [JSONObject]) {
        self[key] = .array(objects.map(JSONValue.object))
    }
}

extension RoomTrackInfo {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(sid: try f.optionalString("sid"), mid: try f.optionalString("mid"), name: try f.string("name"),
                  kind: try f.enumeration("kind"), priority: try f.enumeration("priority", default: .standard),
                  enabled: try f.optionalBool("enabled") ?? true)
    }

    var json: JSONObject {
        var o = JSONObject()
        o.set("sid", sid)
        o.set("mid", mid)
        o.set("name", name)
        o.set("kind", kind.rawValue)
        o.set("priority", priority.rawValue)
        o.set("enabled", bool: enabled)
        return o
    }
}

extension RoomParticipantInfo {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(sid: try f.string("sid"), identity: try f.string("identity"), state: try f.enumeration("state"),
                  tracks: try f.tracks())
    }

    var json: JSONObject {
        var o = JSONObject()
        o.set("sid", sid)
        o.set("identity", identity)
        o.set("state", state.rawValue)
        o.set("tracks", objects: tracks.map(\.json))
        return o
    }
}

extension RoomInfo {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(sid: try f.string("sid"), name: try f.string("name"), type: try f.enumeration("type"),
                  isRecording: try f.bool("isRecording"))
    }

    var json: JSONObject {
        var o = JSONObject()
        o.set("sid", sid)
        o.set("name", name)
        o.set("type", type.rawValue)
        o.set("isRecording", bool: isRecording)
        return o
    }
}

extension RoomPublishedTrack {
    var json: JSONObject {
        var o = JSONObject()
        o.set("mid", mid)
        o.set("trackSid", trackSid)
        return o
    }
}

extension RoomSubscription {
    var json: JSONObject {
        var o = JSONObject()
        o.set("mid", mid)
        o.set("trackSid", trackSid)
        o.set("participantSid", participantSid)
        return o
    }
}

extension RoomJoin {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        let roomV = try f.roomVersion()
        self.init(roomV: roomV, room: try f.optionalString("room"),
                  offer: try f.optionalString("offer", .nonEmptyText, limit: SignalingLimits.maxSDPBytes), tracks: try f.tracks(),
                  automaticSubscription: try f.optionalBool("automaticSubscription") ?? true,
                  dominantSpeaker: try f.optionalBool("dominantSpeaker"),
                  networkQuality: try f.optionalBool("networkQuality"),
                  reconnectParticipantSid: try f.optionalObject("reconnect")?.string("participantSid"),
                  bandwidthProfile: try RoomBandwidthProfile(reading: f))
    }

    func write(into o: inout JSONObject) {
        o.set("roomV", roomV)
        o.set("room", room)
        o.set("offer", offer)
        o.set("tracks", objects: tracks.map(\.json))
        o.set("automaticSubscription", bool: automaticSubscription)
        o.set("dominantSpeaker", bool: dominantSpeaker)
        o.set("networkQuality", bool: networkQuality)
        if let reconnectParticipantSid {
            var reconnect = JSONObject()
            reconnect.set("participantSid", reconnectParticipantSid)
            o["reconnect"] = .object(reconnect)
        }
        if let bandwidthProfile { o["bandwidthProfile"] = .object(bandwidthProfile.json) }
    }
}

extension RoomOffer {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(offer: try f.sdp("offer"), tracks: try f.tracks())
    }

    func write(into o: inout JSONObject) {
        o.set("offer", offer)
        o.set("tracks", objects: tracks.map(\.json))
    }
}

extension RoomTrackEnabled {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(trackSid: try f.string("trackSid"), enabled: try f.bool("enabled"))
    }

    func write(into o: inout JSONObject) {
        o.set("trackSid", trackSid)
        o.set("enabled", bool: enabled)
    }
}

extension RoomTrackReference {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(trackSid: try f.string("trackSid"))
    }

    func write(into o: inout JSONObject) { o.set("trackSid", trackSid) }
}

extension RoomParticipantReference {
    init(reading f: SignalingFieldReader) throws(SignalingError) {
        self.init(participantSid: try f.string("participantSid"))
    }

    func write(into o: inout JSONObject) { o.set("participantSid", participantSid) }
}
