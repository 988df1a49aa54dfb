import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization
import WebRTC

/// Unpublishing (the seed's `LocalParticipant.unpublishAudioTrack` …) in a group room
/// (docs/signaling.md §12, Unpublishing): an audio or video track's sender stops and its
/// transceiver is stopped, so our `room.offer` re-offer carries its section with port 0 and no
/// longer describes the track; the server unpublishes it and answers without it in
/// `published`. A data track's channel closes (stream reset), which unpublishes it. The others
/// get `room.unsubscribed`, then `room.trackUnpublished`.
extension Room {
    /// An unpublication under way: what is left to do once the track is out of our state.
    enum Unpublishing: Sendable {
        /// An audio or video track: stop its transceiver and re-offer.
        case media(any LocalTrack, RoomMediaConnection, SignalingChannel)
        /// A data track: close its channel, if it opened.
        case data(DataTrackOutbox?)
    }

    /// Takes `track` out of what we publish, at once: out of the tracks `room.offer` describes,
    /// its sender stopped, out of the local participant's tracks.
    /// - Throws: 53204 when this is not a connected group room, 53300 when we do not publish `track`.
    func takeForUnpublishing(_ track: any LocalTrack) throws(ParleyError) -> Unpublishing {
        let taken = inner.withLock { s -> Result<(RoomMediaConnection, SignalingChannel, LocalParticipant, [LocalAudioSender], [LocalVideoSender]), ParleyError> in
            guard s.state == .connected, !s.isPeerToPeer, let media = s.media, let channel = s.channel, let local = s.localParticipant else {
                return .failure(ParleyError(.participantNotFound, reason: "the room is not a connected group room"))
            }
            guard local.publishes(track) else {
                return .failure(ParleyError(.trackInvalid, reason: "track \(track.name) is not published"))
            }
            let kind: RoomTrackKind = track is LocalAudioTrack ? .audio : track is LocalVideoTrack ? .video : .data
            s.described.removeAll { $0.name == track.name && $0.kind == kind }
            let audio = s.audioSenders.filter { $0.track === track }
            let video = s.videoSenders.filter { $0.track === track }
            s.audioSenders.removeAll { $0.track === track }
            s.videoSenders.removeAll { $0.track === track }
            return .success((media, channel, local, audio, video))
        }
        let (media, channel, local, audio, video) = try taken.get()
        for sender in audio { sender.stop() }
        for sender in video { sender.stop() }
        local.unpublished(track)
        if let data = track as? LocalDataTrack { return .data(data.unbind()) }
        return .media(track, media, channel)
    }

    /// Tells the server and waits until it unpublished the track.
    func finishUnpublishing(_ unpublishing: Unpublishing) async throws(ParleyError) {
        switch unpublishing {
        case .media(let track, let media, let channel):
            guard let transceiver = await media.removeSender(track) else { return }
            let before = inner.withLock { s -> Int in
                s.publishFailure = nil
                return s.answers
            }
            try await reoffer(media, channel: channel, id: "room-unpublish")
            try await waitUntil("the server did not unpublish track \(track.name)") { s in
                s.answers > before && !s.answeredMids.contains(transceiver.mid)
            }
        case .data(let outbox):
            guard let outbox else { return }
            // An offer sent before the track left `described` still names it: were it answered
            // after the channel closed, the server would publish the track again. Close after it.
            try await waitUntil("our last room.offer was not answered", refusals: false) { s in
                s.answers >= s.offersSent || s.publishFailure != nil
            }
            inner.withLock { $0.closingDataStreams[outbox.stream] = false }
            outbox.close()
            defer { _ = inner.withLock { $0.closingDataStreams.removeValue(forKey: outbox.stream) } }
            try await waitUntil("data channel \(outbox.stream) did not close", refusals: false) { s in
                s.closingDataStreams[outbox.stream] == true
            }
        }
    }

    /// Sends `room.offer` with a fresh offer and our tracks as described now; while our last
    /// offer waits for its answer, tries again (up to `publicationTimeout`).
    func reoffer(_ media: RoomMediaConnection, channel: SignalingChannel, id: String) async throws(ParleyError) {
        let deadline = ContinuousClock.now + Self.publicationTimeout
        while true {
            do throws(ParleyError) {
                let offer = try await media.offer()
                let tracks = inner.withLock { s in
                    s.offersSent += 1
                    return s.described
                }
                channel.send(.roomOffer(RoomOffer(offer: offer, tracks: tracks)), id: id)
                return
            } catch {
                guard ContinuousClock.now < deadline, state == .connected else { throw error }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// Polls our state until `done` (up to `publicationTimeout`); throws the server's refusal of
    /// our last `room.offer` (with `refusals`), or 53300 with `reason` at the deadline.
    func waitUntil(_ reason: String, refusals: Bool = true, _ done: (Inner) -> Bool) async throws(ParleyError) {
        let deadline = ContinuousClock.now + Self.publicationTimeout
        while ContinuousClock.now < deadline {
            let (finished, failure) = inner.withLock { s in (done(s), refusals ? s.publishFailure : nil) }
            if finished { return }
            if let failure {
                inner.withLock { $0.publishFailure = nil }
                throw failure
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        throw ParleyError(.trackInvalid, reason: reason)
    }
}
