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
        var audioTrack: RemoteAudioTrack?
        var videoTrack: RemoteVideoTrack?
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
    /// The track's pictures, while subscribed to a video track.
    public var remoteVideoTrack: RemoteVideoTrack? { state.withLock { $0.videoTrack } }

    func setVideoTrack(_ track: RemoteVideoTrack?) { state.withLock { $0.videoTrack = track } }

    /// The track's audio, while subscribed to an audio track.
    public var remoteAudioTrack: RemoteAudioTrack? { state.withLock { $0.audioTrack } }

    func setAudioTrack(_ track: RemoteAudioTrack?) {
        let old = state.withLock { s -> RemoteAudioTrack? in
            defer { s.audioTrack = track }
            return s.audioTrack
        }
        if old !== track { old?.stop() }
    }

    func setDataTrack(_ track: RemoteDataTrack?) { state.withLock { $0.dataTrack = track } }

    func setEnabled(_ enabled: Bool) { state.withLock { $0.isEnabled = enabled } }
    func setSubscribed(mid: String?) { state.withLock { $0.subscribedMid = mid } }
    func setSwitchedOff(_ off: Bool) { state.withLock { $0.isSwitchedOff = off } }
}
