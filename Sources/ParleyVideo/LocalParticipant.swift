import ParleyCore
import Synchronization

/// This client in its room (the seed's `LocalParticipant`): its identity and SID, the tracks it
/// publishes (by name → the server's SID once published) and its network quality level.
public final class LocalParticipant: Sendable {
    public let identity: String

    private struct Inner {
        var sid: String?
        var published: [String: String] = [:]
        var audioTracks: [LocalAudioTrack]
        var videoTracks: [LocalVideoTrack]
        var dataTracks: [LocalDataTrack]
        var networkQualityLevel: NetworkQualityLevel = .unknown
        weak var delegate: (any LocalParticipantDelegate)?
        weak var room: Room?
    }

    private let inner: Mutex<Inner>

    init(identity: String, options: ConnectOptions) {
        self.identity = identity
        inner = Mutex(Inner(audioTracks: options.audioTracks, videoTracks: options.videoTracks, dataTracks: options.dataTracks))
    }

    /// The audio tracks it publishes now: those connected with, those published since, less
    /// those unpublished.
    public var audioTracks: [LocalAudioTrack] { inner.withLock { $0.audioTracks } }
    public var videoTracks: [LocalVideoTrack] { inner.withLock { $0.videoTracks } }
    public var dataTracks: [LocalDataTrack] { inner.withLock { $0.dataTracks } }

    /// Hears about its publications and network quality; held weakly.
    public var delegate: (any LocalParticipantDelegate)? {
        get { inner.withLock { $0.delegate } }
        set { inner.withLock { $0.delegate = newValue } }
    }

    public var sid: String? { inner.withLock { $0.sid } }

    /// Publishes an audio track now (a re-offer with its section); returns its SID. A track
    /// unpublished before may be published again (it gets a new SID).
    /// - Throws: 53204 when the room is not connected, the server's refusal (53300, 53304, 20106, …).
    public func publishAudioTrack(_ track: LocalAudioTrack) async throws(ParleyError) -> String {
        let sid = try await room().publish(audio: track)
        inner.withLock { $0.audioTracks.append(track) }
        bind(track)
        return sid
    }

    /// Publishes a video track now; returns its SID.
    public func publishVideoTrack(_ track: LocalVideoTrack) async throws(ParleyError) -> String {
        let sid = try await room().publish(video: track)
        inner.withLock { $0.videoTracks.append(track) }
        bind(track)
        return sid
    }

    /// Publishes a data track now; its messages flow once its channel is open.
    public func publishDataTrack(_ track: LocalDataTrack) async throws(ParleyError) {
        inner.withLock { $0.dataTracks.append(track) }
        do { try await room().publish(data: track) } catch {
            inner.withLock { s in s.dataTracks.removeAll { $0 === track } }
            throw error
        }
    }

    /// Stops publishing an audio track (the seed's `unpublishAudioTrack`): it stops sending at
    /// once and leaves `audioTracks`; the others get `didUnsubscribeFrom` then `didUnpublish`.
    /// The server is told in the background (`unpublish(_:)` waits for it). False when this
    /// participant does not publish the track or the room is not a connected group room.
    @discardableResult
    public func unpublishAudioTrack(_ track: LocalAudioTrack) -> Bool { startUnpublishing(track) }

    /// Stops publishing a video track (the seed's `unpublishVideoTrack`); as `unpublishAudioTrack`.
    @discardableResult
    public func unpublishVideoTrack(_ track: LocalVideoTrack) -> Bool { startUnpublishing(track) }

    /// Stops publishing a data track (the seed's `unpublishDataTrack`): its channel closes after
    /// the messages already sent; messages sent later wait for a next publication.
    @discardableResult
    public func unpublishDataTrack(_ track: LocalDataTrack) -> Bool { startUnpublishing(track) }

    /// Unpublishes any of our tracks and returns once the server has: an audio or video track
    /// is gone from its answer to our re-offer, a data track's channel is closed both ways.
    /// - Throws: 53204 when the room is not a connected group room, 53300 when this participant
    ///   does not publish the track or the server did not answer in time, the server's refusal.
    public func unpublish(_ track: any LocalTrack) async throws(ParleyError) {
        let room = try room()
        let started = try room.takeForUnpublishing(track)
        try await room.finishUnpublishing(started)
    }

    /// Limits what this participant sends from now on (the seed's `setEncodingParameters`): the
    /// audio and video bitrate caps of `EncodingParameters` (0 or nil: none), applied to the
    /// encoders of every published track and of those published later.
    public func setEncodingParameters(_ parameters: EncodingParameters?) {
        inner.withLock { $0.room }?.setEncodingParameters(parameters)
    }

    private func startUnpublishing(_ track: any LocalTrack) -> Bool {
        guard let room = inner.withLock({ $0.room }), let started = try? room.takeForUnpublishing(track) else { return false }
        Task {
            do throws(ParleyError) { try await room.finishUnpublishing(started) } catch {
                Log.warning(.platform, "room \(room.sid ?? "-"): unpublishing \(track.name): \(error)")
            }
        }
        return true
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

    /// Whether it publishes `track` now (that very object).
    func publishes(_ track: any LocalTrack) -> Bool {
        inner.withLock { s in
            s.audioTracks.contains { $0 === track } || s.videoTracks.contains { $0 === track } || s.dataTracks.contains { $0 === track }
        }
    }

    /// `track` is no longer published: out of its list, its SID forgotten (a publication again
    /// waits for a new one).
    func unpublished(_ track: any LocalTrack) {
        inner.withLock { s in
            s.audioTracks.removeAll { $0 === track }
            s.videoTracks.removeAll { $0 === track }
            s.dataTracks.removeAll { $0 === track }
            s.published[track.name] = nil
        }
    }
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
