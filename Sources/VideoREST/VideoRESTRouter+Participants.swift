import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore
import SFU

extension VideoRESTRouter {
    /// `GET …/Participants` (`Status`, `Identity`, paging), newest first.
    func participants(_ context: VideoContext, room: RoomRecord) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        let p = context.parameters
        var status: ParticipantStatus?
        var filters: [(String, String)] = []
        if let text = p["Status"] {
            guard let s = ParticipantStatus(rawValue: text) else { throw .invalidParameter("Status \(text) is invalid") }
            status = s
            filters.append(("Status", text))
        }
        var all = try storeCall { () throws(StoreError) in try store.participants(roomSid: room.sid, status: status) }
        if let identity = p["Identity"] {
            all = all.filter { $0.identity == identity }
            filters.append(("Identity", identity))
        }
        let paging = try VideoPaging(p)
        return Self.json(paging.envelope(key: "participants",
                                         all: all.map { VideoResourceJSON.participant($0, base: context.base) },
                                         url: "\(context.base)\(Self.root)/\(room.sid)/Participants", filters: filters))
    }

    /// `GET …/Participants/{PA or identity}`; `POST Status=disconnected` disconnects it.
    func participant(_ context: VideoContext, room: RoomRecord, _ participant: ParticipantRecord) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        guard context.method == "POST" else { return Self.json(VideoResourceJSON.participant(participant, base: context.base)) }
        _ = try Self.participantUpdate(context.parameters)
        if participant.status == .disconnected { return Self.json(VideoResourceJSON.participant(participant, base: context.base)) }
        guard let gone = await control.disconnectParticipant(roomSid: room.sid, participantSid: participant.sid) else {
            throw .notFound(context.request.path)
        }
        return Self.json(VideoResourceJSON.participant(gone, base: context.base))
    }

    /// `GET …/PublishedTracks` (paging) and `…/PublishedTracks/{MT}`.
    func publishedTracks(_ context: VideoContext, _ participant: ParticipantRecord, trackSid: String?) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        let all = try storeCall { () throws(StoreError) in try store.publishedTracks(participantSid: participant.sid) }
        if let trackSid {
            guard let track = all.first(where: { $0.sid == trackSid }) else { throw .notFound(context.request.path) }
            return Self.json(VideoResourceJSON.publishedTrack(track, base: context.base))
        }
        return Self.json(try VideoPaging(context.parameters).envelope(
            key: "published_tracks", all: all.map { VideoResourceJSON.publishedTrack($0, base: context.base) },
            url: "\(context.base)\(Self.root)/\(participant.roomSid)/Participants/\(participant.sid)/PublishedTracks",
            filters: []))
    }

    /// `GET …/SubscribedTracks` (paging) and `…/SubscribedTracks/{MT}`, from the live room.
    func subscribedTracks(_ context: VideoContext, _ participant: ParticipantRecord, trackSid: String?) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        let all = await control.subscribedTracks(roomSid: participant.roomSid, participantSid: participant.sid) ?? []
        let url = "\(context.base)\(Self.root)/\(participant.roomSid)/Participants/\(participant.sid)/SubscribedTracks"
        func json(_ t: SubscribedTrack) -> JSONValue {
            guard case .object(var object) = VideoResourceJSON.subscribedTrack(t, room: participant.roomSid,
                                                                                subscriber: participant.sid) else { return .null }
            object["url"] = .string(url + "/" + t.trackSid)
            return .object(object)
        }
        if let trackSid {
            guard let track = all.first(where: { $0.trackSid == trackSid }) else { throw .notFound(context.request.path) }
            return Self.json(json(track))
        }
        return Self.json(try VideoPaging(context.parameters).envelope(key: "subscribed_tracks", all: all.map(json),
                                                                     url: url, filters: []))
    }

    /// `GET …/SubscribeRules`; `POST Rules=[…]` (a JSON array in a form field) replaces them (bad rules: 53215).
    func subscribeRules(_ context: VideoContext, _ participant: ParticipantRecord) async throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        let (room, sid) = (participant.roomSid, participant.sid)
        let rules: SubscribeRules?
        if context.method == "POST" {
            guard let text = context.parameters["Rules"], let parsed = SubscribeRulesJSON.parse(text) else {
                throw Self.failure(.participantInvalidSubscribeRule, "The subscribe rules are invalid")
            }
            rules = await control.updateSubscribeRules(roomSid: room, participantSid: sid, parsed)
        } else {
            rules = await control.subscribeRules(roomSid: room, participantSid: sid)
        }
        guard let rules else { throw .notFound(context.request.path) }
        return Self.json(.object([
            "participant_sid": .string(sid), "room_sid": .string(room),
            "rules": SubscribeRulesJSON.json(rules),
            "date_created": VideoResourceJSON.date(participant.startTime),
            "date_updated": VideoResourceJSON.date(participant.updatedAt),
        ]))
    }
}

/// Subscribe rules in the vendor's JSON: `[{"type": "include", "all": true}, {"type": "exclude", "kind": "video"}]`.
/// Pure and bounded: at most 50 rules, each a `type` and known filters (`TrackRulesJSON`).
package enum SubscribeRulesJSON {
    package static func parse(_ text: String) -> SubscribeRules? {
        TrackRulesJSON.parse(text, TrackRulesJSON.subscribe).map(SubscribeRules.init)
    }

    static func json(_ rules: SubscribeRules) -> JSONValue { TrackRulesJSON.json(rules.rules) }

    /// The rules as JSON text (what the store keeps).
    package static func text(_ rules: SubscribeRules) -> String { String(decoding: json(rules).serialized(), as: UTF8.self) }
}
