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
