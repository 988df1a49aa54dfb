import Synchronization

/// A track a remote participant publishes (the seed's `RemoteAudioTrackPublication`,
/// `RemoteVideoTrackPublication`, `RemoteDataTrackPublication` in one type, told apart by
/// `kind`): whether it is enabled, whether we receive it, and whether the server switched it off.
public final class RemoteTrackPublication: Sendable {
    public let trackSid: String
    public let trackName: String
    public let kind: TrackKind
    public let priority: TrackPriority

    private struct State {
        var isEnabled: Bool
        var subscribedMid: String?
        var isSwitchedOff = false
        var dataTrack: RemoteDataTrack?
    }

    private let state: Mutex<State>

    init(sid: String, name: String, kind: TrackKind, priority: TrackPriority, enabled: Bool) {
        trackSid = sid
        trackName = name
        self.kind = kind
        self.priority = priority
        state = Mutex(State(isEnabled: enabled))
    }

    /// The publisher sends it (`false` after it disabled the track).
    public var isTrackEnabled: Bool { state.withLock { $0.isEnabled } }
    /// We receive it.
    public var isTrackSubscribed: Bool { state.withLock { $0.subscribedMid != nil } }
    /// The server stopped sending it to us (our downlink does not carry it); it comes back on its own.
    public var isTrackSwitchedOff: Bool { state.withLock { $0.isSwitchedOff } }

    /// The mid of the receive slot it arrives in, while subscribed.
    var mid: String? { state.withLock { $0.subscribedMid } }

    /// The track's messages, while subscribed to a data track.
    public var remoteDataTrack: RemoteDataTrack? { state.withLock { $0.dataTrack } }

    func setDataTrack(_ track: RemoteDataTrack?) { state.withLock { $0.dataTrack = track } }

    func setEnabled(_ enabled: Bool) { state.withLock { $0.isEnabled = enabled } }
    func setSubscribed(mid: String?) { state.withLock { $0.subscribedMid = mid } }
    func setSwitchedOff(_ off: Bool) { state.withLock { $0.isSwitchedOff = off } }
}
