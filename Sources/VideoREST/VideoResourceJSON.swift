import JSONWire
import ParleyStore
import PlatformCore

/// Video v1 resources as the vendor writes them: snake_case keys, ISO 8601 UTC dates, absolute `url`s.
enum VideoResourceJSON {
    /// `2015-07-30T20:00:00Z`.
    static func date(_ seconds: Int64?) -> JSONValue {
        seconds.map { .string(RESTTime.iso8601($0)) } ?? .null
    }

    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    static func room(_ r: RoomRecord, base: String) -> JSONValue {
        let url = "\(base)/v1/Rooms/\(r.sid)"
        return .object([
            "sid": .string(r.sid), "account_sid": .string(r.accountSid), "unique_name": .string(r.uniqueName),
            "status": .string(r.status.rawValue), "type": .string(r.type.rawValue),
            "date_created": date(r.createdAt), "date_updated": date(r.updatedAt),
            "end_time": date(r.endTime), "duration": r.duration.map(JSONValue.integer) ?? .null,
            "max_participants": .integer(Int64(r.maxParticipants)),
            "max_participant_duration": .integer(Int64(r.maxParticipantDuration)),
            "max_concurrent_published_tracks": .integer(Int64(r.type.isRouted ? 170 : 0)),
            "record_participants_on_connect": .bool(r.recordParticipantsOnConnect),
            "video_codecs": .array(r.videoCodecs.map(JSONValue.string)),
            "media_region": .string("us1"), "audio_only": .bool(r.audioOnly),
            "empty_room_timeout": .integer(Int64(r.emptyRoomTimeout)),
            "unused_room_timeout": .integer(Int64(r.unusedRoomTimeout)),
            "large_room": .bool(false), "status_callback": optional(r.statusCallback),
            "status_callback_method": .string(r.statusCallbackMethod), "enable_turn": .bool(true),
            "url": .string(url),
            "links": .object([
                "participants": .string(url + "/Participants"), "recordings": .string(url + "/Recordings"),
                "recording_rules": .string(url + "/RecordingRules"),
            ]),
        ])
    }

    static func participant(_ p: ParticipantRecord, base: String) -> JSONValue {
        let url = "\(base)/v1/Rooms/\(p.roomSid)/Participants/\(p.sid)"
        return .object([
            "sid": .string(p.sid), "room_sid": .string(p.roomSid), "account_sid": .string(p.accountSid),
            "status": .string(p.status.rawValue), "identity": .string(p.identity),
            "date_created": date(p.startTime), "date_updated": date(p.updatedAt),
            "start_time": date(p.startTime), "end_time": date(p.endTime),
            "duration": p.duration.map(JSONValue.integer) ?? .null, "url": .string(url),
            "links": .object([
                "published_tracks": .string(url + "/PublishedTracks"),
                "subscribed_tracks": .string(url + "/SubscribedTracks"),
                "subscribe_rules": .string(url + "/SubscribeRules"),
                "anonymize": .string(url + "/Anonymize"),
            ]),
        ])
    }

    static func publishedTrack(_ t: PublishedTrackRecord, base: String) -> JSONValue {
        .object([
            "sid": .string(t.sid), "participant_sid": .string(t.participantSid), "room_sid": .string(t.roomSid),
            "name": .string(t.name), "date_created": date(t.createdAt), "date_updated": date(t.updatedAt),
            "enabled": .bool(t.enabled), "kind": .string(t.kind.rawValue),
            "url": .string("\(base)/v1/Rooms/\(t.roomSid)/Participants/\(t.participantSid)/PublishedTracks/\(t.sid)"),
        ])
    }

    static func subscribedTrack(_ t: SubscribedTrack, room: String, subscriber: String) -> JSONValue {
        .object([
            "sid": .string(t.trackSid), "participant_sid": .string(subscriber), "publisher_sid": .string(t.publisherSid),
            "room_sid": .string(room), "name": .string(t.name), "date_created": date(t.createdAt),
            "date_updated": date(t.updatedAt), "enabled": .bool(t.enabled), "kind": .string(t.kind.rawValue),
            "url": .null,
        ])
    }
}
