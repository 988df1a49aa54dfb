import ParleyCore
import ParleyStore
import Signaling

/// What a room's options ask of its media sessions: an `AudioOnly` room refuses video tracks
/// (53125, Twilio's RoomTrackKindNotSupportedError), and the answer to a join or re-offer takes
/// only the room's `VideoCodecs`.
extension RoomService {
    /// The account's in-progress room `name` (a unique name or `RM…` SID), if any.
    func liveRoom(accountSid: String, name: String) -> RoomRecord? {
        rooms.values.first { $0.record.accountSid == accountSid && ($0.record.sid == name || $0.record.uniqueName == name) }?.record
    }

    /// Whether `a` and `b` (unique names or `RM…` SIDs) name one room of the account: equal, or
    /// the name and SID of an in-progress room (a video grant may name either).
    public func sameRoom(accountSid: String, _ a: String, _ b: String) -> Bool {
        a == b || liveRoom(accountSid: accountSid, name: a).map { $0.sid == b || $0.uniqueName == b } == true
    }

    /// The video codecs a room allows; nil is a room a join will make ad hoc (VP8, as REST's default).
    static func videoCodecs(of room: RoomRecord?) -> [String] { room?.videoCodecs ?? ["VP8"] }

    /// - Throws: 53125 when an audio-only room is asked to publish a video track.
    static func check(_ described: [RoomTrackInfo], in room: RoomRecord?) throws(ParleyError) {
        guard room?.audioOnly == true, let video = described.first(where: { $0.kind == .video }) else { return }
        throw ParleyError(.roomTrackKindNotSupported, reason: "room \(room?.uniqueName ?? "") is audio-only: \(video.name) is video")
    }
}
