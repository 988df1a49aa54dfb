import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization

/// Publishing after connecting (the seed's `LocalParticipant.publishAudioTrack` …): a new
/// sending section (or, for data, a described track) in a `room.offer` re-offer; the track's SID
/// comes back in `room.answer`'s `published` (media) or as our participant's track (data), and
/// `didPublishTrackNamed` follows. Enabling and disabling a published track is `room.trackEnabled`.
extension Room {
    /// How long a publication waits for the server's answer.
    static let publicationTimeout: Duration = .seconds(10)

    func publish(audio track: LocalAudioTrack) async throws(ParleyError) -> String {
        let media = try connectedMedia()
        let described = try await media.addSender(track)
        let sid = try await publish(described, media: media)
        await startSenders(media, audio: media.audioSenders.filter { $0.track === track }, video: [])
        return sid
    }

    func publish(video track: LocalVideoTrack) async throws(ParleyError) -> String {
        let media = try connectedMedia()
        let described = try await media.addSender(track, simulcast: options.preferredVideoCodecs.first?.isSimulcast == true)
        let sid = try await publish(described, media: media)
        await startSenders(media, audio: [], video: media.videoSenders.filter { $0.track === track })
        return sid
    }

    /// A data track is published as the server reads it in the re-offer; its SID is not sent
    /// back to us (`room.answer` names sections, and a data track has none).
    func publish(data track: LocalDataTrack) async throws(ParleyError) {
        let media = try connectedMedia()
        guard let channel = inner.withLock({ $0.channel }) else { throw ParleyError(.participantNotFound, reason: "not connected") }
        inner.withLock { $0.described.append(RoomTrackInfo(name: track.name, kind: .data)) }
        try await reoffer(media, channel: channel, id: "room-publish")
        openDataChannels(for: [track], media: media)
    }

    private func connectedMedia() throws(ParleyError) -> RoomMediaConnection {
        guard let media = inner.withLock({ $0.state == .connected ? $0.media : nil }) else {
            throw ParleyError(.participantNotFound, reason: "the room is not connected")
        }
        return media
    }

    /// Re-offers with `track` described too, and waits for its SID.
    private func publish(_ track: RoomTrackDescription, media: RoomMediaConnection) async throws(ParleyError) -> String {
        guard let channel = inner.withLock({ $0.channel }) else {
            throw ParleyError(.participantNotFound, reason: "the room is not connected")
        }
        inner.withLock { s in
            s.described.append(Self.trackInfo(track))
            s.publishFailure = nil  // an earlier request's refusal is not this one's
        }
        try await reoffer(media, channel: channel, id: "room-publish")
        try await waitUntil("the server did not publish track \(track.name)") { s in
            s.localParticipant?.publishedTrackSid(named: track.name) != nil
        }
        guard let sid = localParticipant?.publishedTrackSid(named: track.name) else {
            throw ParleyError(.trackInvalid, reason: "track \(track.name) was unpublished meanwhile")
        }
        return sid
    }

    /// `room.answer` (or our own participant's tracks) named SIDs for tracks we described.
    func notePublished(_ published: [(name: String, sid: String)]) {
        guard let local = localParticipant else { return }
        for track in published where local.publishedTrackSid(named: track.name) == nil {
            local.published(track.name, sid: track.sid)
            tellLocal(local) { $0.localParticipant(local, didPublishTrackNamed: track.name, trackSid: track.sid) }
        }
    }

    /// A published track of ours was enabled or disabled: the others hear it (`room.trackChanged`).
    func trackEnabledChanged(name: String, enabled: Bool) {
        guard let sid = localParticipant?.publishedTrackSid(named: name), let channel = inner.withLock({ $0.channel }) else { return }
        inner.withLock { s in
            if let index = s.described.firstIndex(where: { $0.name == name }) { s.described[index].enabled = enabled }
        }
        channel.send(.roomTrackEnabled(RoomTrackEnabled(trackSid: sid, enabled: enabled)))
    }
}
