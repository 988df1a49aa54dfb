import ParleyStore
import PlatformCore

/// The parameters of the Video status callbacks (Twilio's room, participant and track events),
/// form-encoded and signed like voice webhooks. Pure: records in, parameter list out.
enum RoomCallbacks {
    /// `room-created`, `room-ended`, …: what every event of a room carries.
    static func room(_ room: RoomRecord, event: String, sequence: Int, now: Int64) -> [(String, String)] {
        var parameters: [(String, String)] = [
            ("AccountSid", room.accountSid),
            ("RoomName", room.uniqueName),
            ("RoomSid", room.sid),
            ("RoomStatus", room.status.rawValue),
            ("RoomType", room.type.rawValue),
            ("StatusCallbackEvent", event),
            ("Timestamp", RESTTime.iso8601(now)),
            ("SequenceNumber", String(sequence)),
        ]
        if event == "room-ended", let duration = room.duration { parameters.append(("RoomDuration", String(duration))) }
        return parameters
    }

    /// `participant-connected`, `participant-disconnected`.
    static func participant(_ participant: ParticipantRecord, room: RoomRecord, event: String, sequence: Int,
                            now: Int64) -> [(String, String)] {
        var parameters = self.room(room, event: event, sequence: sequence, now: now)
        parameters += [("ParticipantSid", participant.sid), ("ParticipantIdentity", participant.identity),
                       ("ParticipantStatus", participant.status.rawValue)]
        if let duration = participant.duration { parameters.append(("ParticipantDuration", String(duration))) }
        return parameters
    }

    /// `track-added`, `track-removed`, `track-enabled`, `track-disabled`.
    static func track(_ track: PublishedTrackRecord, participant: ParticipantRecord, room: RoomRecord, event: String,
                      sequence: Int, now: Int64) -> [(String, String)] {
        Self.participant(participant, room: room, event: event, sequence: sequence, now: now)
            + [("TrackSid", track.sid), ("TrackKind", track.kind.rawValue), ("TrackName", track.name)]
    }
}

extension RoomCallbacks {
    /// `recording-started`, `recording-completed`, `recording-failed`: the track's participant
    /// and track, and the recording (`Duration` and `Size` once completed).
    static func recording(_ recording: RoomRecordingRecord, track: PublishedTrackRecord, participant: ParticipantRecord,
                          room: RoomRecord, event: String, sequence: Int, now: Int64) -> [(String, String)] {
        var parameters = Self.track(track, participant: participant, room: room, event: event, sequence: sequence, now: now)
        let uri = "/v1/Recordings/\(recording.sid)"
        parameters += [("RecordingSid", recording.sid), ("RecordingUri", uri), ("SourceSid", recording.sourceSid),
                       ("Container", recording.container), ("Codec", recording.codec), ("MediaUri", uri + "/Media"),
                       ("OffsetFromTwilioVideoEpoch", String(recording.offset))]
        if recording.status == .completed {
            parameters += [("Duration", String(recording.duration ?? 0)), ("Size", String(recording.size ?? 0))]
        }
        if recording.status == .failed { parameters.append(("FailedOperation", "media-recording")) }
        return parameters
    }
}
