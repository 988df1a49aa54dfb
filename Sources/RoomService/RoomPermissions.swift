import ParleyCore
import ParleyStore
import Signaling

/// What a participant's access token lets it do in a room: Parley's finer grants beside the
/// video grant's `room` (`grants.video.canPublish`, `canSubscribe`, `canPublishData`, each true
/// when absent, as a Twilio token without them means). Enforced where it acts: a track it may not
/// publish is refused (20106) at join or re-offer, so nothing it sends in that section is routed;
/// without `canSubscribe` it is routed nothing and `room.subscribe` fails (20106).
public struct RoomPermissions: Sendable, Hashable {
    public var canPublish: Bool
    public var canSubscribe: Bool
    public var canPublishData: Bool

    public init(canPublish: Bool = true, canSubscribe: Bool = true, canPublishData: Bool = true) {
        self.canPublish = canPublish
        self.canSubscribe = canSubscribe
        self.canPublishData = canPublishData
    }

    /// Everything (a token without the finer grants).
    public static let all = RoomPermissions()

    /// Throws 20106 when a track of `kind` may not be published.
    func check(publishing kind: TrackKind) throws(ParleyError) {
        switch kind {
        case .audio, .video:
            guard canPublish else { throw ParleyError(.accessTokenGrantsInvalid, reason: "the token's video grant does not allow publishing") }
        case .data:
            guard canPublishData else {
                throw ParleyError(.accessTokenGrantsInvalid, reason: "the token's video grant does not allow publishing data")
            }
        }
    }
}

extension RoomService {
    /// Refuses a join whose described tracks its grants do not allow, before anything is admitted.
    static func check(_ tracks: [RoomTrackInfo], allowedBy permissions: RoomPermissions) throws(ParleyError) {
        for track in tracks { try permissions.check(publishing: TrackKind(rawValue: track.kind.rawValue) ?? .data) }
    }
}
