import ParleyCore
import Synchronization

/// This client in its room (the seed's `LocalParticipant`): its identity and SID, the tracks it
/// publishes (by name → the server's SID once published) and its network quality level.
public final class LocalParticipant: Sendable {
    public let identity: String

    private struct Inner {
        var sid: String?
        var published: [String: String] = [:]
        var networkQualityLevel: NetworkQualityLevel = .unknown
        weak var delegate: (any LocalParticipantDelegate)?
        weak var room: Room?
    }

    private let inner = Mutex(Inner())
    public let audioTracks: [LocalAudioTrack]
    public let videoTracks: [LocalVideoTrack]
    public let dataTracks: [LocalDataTrack]

    init(identity: String, options: ConnectOptions) {
        self.identity = identity
        audioTracks = options.audioTracks
        videoTracks = options.videoTracks
        dataTracks = options.dataTracks
    }

    /// Hears about its publications and network quality; held weakly.
    public var delegate: (any LocalParticipantDelegate)? {
        get { inner.withLock { $0.delegate } }
        set { inner.withLock { $0.delegate = newValue } }
    }

    public var sid: String? { inner.withLock { $0.sid } }

    /// Publishes an audio track now (a re-offer with its section); returns its SID.
    /// - Throws: 53204 when the room is not connected, the server's refusal (53300, 53304, 20106, …).
    public func publishAudioTrack(_ track: LocalAudioTrack) async throws(ParleyError) -> String {
        let sid = try await room().publish(audio: track)
        bind(track)
        return sid
    }

    /// Publishes a video track now; returns its SID.
    public func publishVideoTrack(_ track: LocalVideoTrack) async throws(ParleyError) -> String {
        let sid = try await room().publish(video: track)
        bind(track)
        return sid
    }

    /// Publishes a data track now; its messages flow once its channel is open.
    public func publishDataTrack(_ track: LocalDataTrack) async throws(ParleyError) {
        try await room().publish(data: track)
    }

    private func room() throws(ParleyError) -> Room {
        guard let room = inner.withLock({ $0.room }) else { throw ParleyError(.participantNotFound, reason: "the room is gone") }
        return room
    }

    /// The track's enabling and disabling reach the room (`room.trackEnabled`).
    func bind(_ track: some LocalMediaTrack) {
        let name = track.name
        track.enabled.onChange { [weak self] enabled in
            self?.inner.withLock { $0.room }?.trackEnabledChanged(name: name, enabled: enabled)
        }
    }

    func attach(_ room: Room) { inner.withLock { $0.room = room } }
    public var networkQualityLevel: NetworkQualityLevel { inner.withLock { $0.networkQualityLevel } }

    /// The SID the server gave the track named `name`, once published.
    public func publishedTrackSid(named name: String) -> String? { inner.withLock { $0.published[name] } }

    func setSid(_ sid: String) { inner.withLock { $0.sid = sid } }
    func setNetworkQualityLevel(_ level: NetworkQualityLevel) { inner.withLock { $0.networkQualityLevel = level } }
    func published(_ name: String, sid: String) { inner.withLock { $0.published[name] = sid } }
}

/// What happens to this client's publications (the seed's `LocalParticipantDelegate`).
public protocol LocalParticipantDelegate: AnyObject, Sendable {
    /// The track named `trackName` is published as `trackSid`.
    func localParticipant(_ participant: LocalParticipant, didPublishTrackNamed trackName: String, trackSid: String)
    func localParticipant(_ participant: LocalParticipant, didFailToPublishTrackNamed trackName: String, error: ParleyError)
    func localParticipant(_ participant: LocalParticipant, networkQualityLevelDidChange level: NetworkQualityLevel)
}

extension LocalParticipantDelegate {
    public func localParticipant(_ participant: LocalParticipant, didPublishTrackNamed trackName: String, trackSid: String) {}
    public func localParticipant(_ participant: LocalParticipant, didFailToPublishTrackNamed trackName: String, error: ParleyError) {}
    public func localParticipant(_ participant: LocalParticipant, networkQualityLevelDidChange level: NetworkQualityLevel) {}
}
