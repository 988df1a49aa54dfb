import ParleyCore
import Synchronization
import WebRTC

/// The media of the room's tracks: our audio senders once the connection is up, and each
/// subscribed remote track on the receive slot the server put it in.
extension Room {
    /// Once joined: audio senders and data channels start when ICE and DTLS are up.
    func startMedia(_ media: RoomMediaConnection) {
        startData(media)
        media.observe { [weak self] state in self?.mediaStateChanged(state) }
        Task { [weak self] in
            guard await media.connected(), let self, self.state != .disconnected else { return }
            await self.startSenders(media, audio: media.audioSenders, video: media.videoSenders)
        }
        // Key frames the server asks for (PLI/FIR on our simulcast layers), and its estimate of
        // our uplink (REMB), which the encoders follow.
        Task { [weak self] in
            for await event in media.peer.transceiverEvents {
                guard let self else { return }
                switch event {
                case .keyFrameRequested(mid: let mid, rid: let rid):
                    let sender = self.inner.withLock { s in s.videoSenders.first { $0.transceiver?.mid == mid } }
                    sender?.requestKeyFrame(rid: rid)
                case .receiverEstimatedBitrate(let bitrate):
                    let senders = self.inner.withLock { $0.videoSenders }
                    // Shared by our video tracks in proportion to their number.
                    for sender in senders { sender.receiverEstimated(bitrate / UInt64(max(senders.count, 1))) }
                case .stopped:
                    break
                }
            }
        }
    }

    /// Starts capturing and sending the given tracks (those with a device or a source); audio in
    /// the codec the server's answer chose for its section.
    func startSenders(_ media: RoomMediaConnection, audio: [(track: LocalAudioTrack, transceiver: RTPTransceiver)],
                      video: [(track: LocalVideoTrack, transceiver: RTPTransceiver)]) async {
        var senders: [LocalAudioSender] = []
        for (track, transceiver) in audio {
            guard let device = track.device else { continue }
            let negotiated = await media.peer.statistics(of: transceiver)?.codec?.audio
            do throws(ParleyError) {
                let sender = try LocalAudioSender(track: track, device: device, codec: negotiated.map(AudioCodec.init) ?? .opus,
                                                  peer: media.peer, transceiver: transceiver)
                try sender.start()
                senders.append(sender)
            } catch {
                Log.warning(.platform, "room \(sid ?? "-"): audio track \(track.name): \(error)")
            }
        }
        var cameras: [LocalVideoSender] = []
        for (track, transceiver) in video {
            guard let source = track.source else { continue }
            let sender = LocalVideoSender(track: track, source: source, peer: media.peer, transceiver: transceiver)
            do throws(ParleyError) {
                try sender.start()
                cameras.append(sender)
            } catch {
                Log.warning(.platform, "room \(sid ?? "-"): video track \(track.name): \(error)")
            }
        }
        adopt(audio: senders, video: cameras)
    }

    /// New senders join the room's lists under its encoding limits; stopped at once when the
    /// room is over.
    func adopt(audio senders: [LocalAudioSender], video cameras: [LocalVideoSender]) {
        // Under the room's lock, so a concurrent `setEncodingParameters` cannot be missed (a
        // sender's lock never takes the room's).
        let stale = inner.withLock { s -> ([LocalAudioSender], [LocalVideoSender]) in
            guard s.state != .disconnected else { return (senders, cameras) }
            for sender in senders { sender.setMaxBitrate(s.encoding?.audioLimit) }
            for sender in cameras { sender.setMaxBitrate(s.encoding?.videoLimit) }
            s.audioSenders += senders
            s.videoSenders += cameras
            return ([], [])
        }
        for sender in stale.0 { sender.stop() }
        for sender in stale.1 { sender.stop() }
    }

    /// New limits on what we send (`LocalParticipant.setEncodingParameters`): every sender now
    /// and later follows them.
    func setEncodingParameters(_ parameters: EncodingParameters?) {
        inner.withLock { s in
            s.encoding = parameters
            for sender in s.audioSenders { sender.setMaxBitrate(parameters?.audioLimit) }
            for sender in s.videoSenders { sender.setMaxBitrate(parameters?.videoLimit) }
        }
    }

    /// Stops capturing and playing (the room ended for us).
    func stopMedia() {
        let (senders, cameras) = inner.withLock { s -> ([LocalAudioSender], [LocalVideoSender]) in
            defer {
                s.audioSenders = []
                s.videoSenders = []
            }
            return (s.audioSenders, s.videoSenders)
        }
        for sender in senders { sender.stop() }
        for sender in cameras { sender.stop() }
        closePeers()
        // Remote audio tracks play on a 20 ms task of their own: it ends with the room.
        for participant in remoteParticipants {
            for publication in participant.audioTracks { publication.remoteAudioTrack?.stop() }
        }
    }

    /// A remote audio or video track is in our slot `mid`: its packets go to its track object.
    func attachMedia(_ publication: RemoteTrackPublication, mid: String) {
        guard let media = inner.withLock({ $0.media }), let slot = media.slot(mid) else { return }
        switch publication.kind {
        case .audio:
            let track = publication.remoteAudioTrack ?? RemoteAudioTrack(sid: publication.trackSid, name: publication.trackName)
            publication.setAudioTrack(track)
            slot.attach(track)
        case .video:
            let track = publication.remoteVideoTrack
                ?? RemoteVideoTrack(sid: publication.trackSid, name: publication.trackName, peer: media.peer,
                                    transceiver: slot.transceiver)
            publication.setVideoTrack(track)
            slot.attach(track)
        case .data:
            break
        }
    }
}
