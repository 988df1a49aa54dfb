import JSONWire
import ParleyStore

/// Recording (`RT…`) and Composition (`CJ…`) resources as the vendor writes them.
extension VideoResourceJSON {
    /// A recording under `/v1/Recordings` or, with `underRoom`, `/v1/Rooms/{RM}/Recordings`.
    static func recording(_ r: RoomRecordingRecord, base: String, underRoom: Bool, statusCallback: String?,
                          statusCallbackMethod: String) -> JSONValue {
        let url = underRoom ? "\(base)/v1/Rooms/\(r.roomSid)/Recordings/\(r.sid)" : "\(base)/v1/Recordings/\(r.sid)"
        var object: JSONObject = [
            "account_sid": .string(r.accountSid), "status": .string(r.status.rawValue), "date_created": date(r.createdAt),
            "sid": .string(r.sid), "source_sid": .string(r.sourceSid), "size": r.size.map(JSONValue.integer) ?? .integer(0),
            "url": .string(url), "type": .string(r.kind.rawValue),
            "duration": r.duration.map(JSONValue.integer) ?? .null,
            "container_format": .string(r.container), "codec": .string(r.codec),
            "grouping_sids": .object(["room_sid": .string(r.roomSid), "participant_sid": .string(r.participantSid)]),
            "track_name": .string(r.trackName.isEmpty ? r.sourceSid : r.trackName), "offset": .integer(r.offset),
            "media_external_location": .null,
        ]
        if underRoom {
            object["room_sid"] = .string(r.roomSid)
        } else {
            object["status_callback"] = optional(statusCallback)
            object["status_callback_method"] = .string(statusCallbackMethod)
        }
        object["links"] = .object(["media": .string(url + "/Media")])
        return .object(object)
    }

    static func composition(_ c: CompositionRecord, base: String) -> JSONValue {
        let url = "\(base)/v1/Compositions/\(c.sid)"
        let layout = (try? JSONValue.parse(Array(c.videoLayout.utf8), maxDepth: 8)) ?? .object([:])
        return .object([
            "account_sid": .string(c.accountSid), "status": .string(c.status.rawValue), "date_created": date(c.createdAt),
            "date_completed": date(c.completedAt), "date_deleted": date(c.deletedAt), "sid": .string(c.sid),
            "room_sid": .string(c.roomSid), "audio_sources": .array(c.audioSources.map(JSONValue.string)),
            "audio_sources_excluded": .array(c.audioSourcesExcluded.map(JSONValue.string)), "video_layout": layout,
            "resolution": .string(c.resolution), "trim": .bool(c.trim), "format": .string(c.format),
            "bitrate": .integer(c.bitrate ?? 0), "size": .integer(c.size ?? 0), "duration": .integer(c.duration ?? 0),
            "media_external_location": .null, "status_callback": optional(c.statusCallback),
            "status_callback_method": .string(c.statusCallbackMethod), "url": .string(url),
            "links": .object(["media": .string(url + "/Media")]),
        ])
    }
}
