import ParleyCore
import Synchronization

/// The media of the room's tracks: our audio senders once the connection is up, and each
/// subscribed remote track on the receive slot the server put it in.
extension Room {
    /// Once joined: audio senders and data channels start when ICE and DTLS are up.
    func startMedia(_ media: RoomMediaConnection) {
        startData(media)
        Task { [weak self] in
            guard await media.connected(), let self, self.state != .disconnected else { return }
            var senders: [LocalAudioSender] = []
            for (track, transceiver) in media.audioSenders {
                guard let device = track.device else { continue }
                do throws(ParleyError) {
                    let sender = try LocalAudioSender(track: track, device: device, peer: media.peer, transceiver: transceiver)
                    try sender.start()
                    senders.append(sender)
                } catch {
                    Log.warning(.platform, "room \(self.sid ?? "-"): audio track \(track.name): \(error)")
                }
            }
            let stale = self.inner.withLock { s -> [LocalAudioSender] in
                guard s.state != .disconnected else { return senders }
                s.audioSenders += senders
                return []
            }
            for sender in stale { sender.stop() }
        }
    }

    /// Stops capturing (on leaving).
    func stopMedia() {
        let senders = inner.withLock { s -> [LocalAudioSender] in
            defer { s.audioSenders = [] }
            return s.audioSenders
        }
        for sender in senders { sender.stop() }
    }

    /// A remote audio or video track is in our slot `mid`: its packets go to its track object.
    func attachMedia(_ publication: RemoteTrackPublication, mid: String) {
        guard let slot = inner.withLock({ $0.media })?.slot(mid) else { return }
        switch publication.kind {
        case .audio:
            let track = publication.remoteAudioTrack ?? RemoteAudioTrack(sid: publication.trackSid, name: publication.trackName)
            publication.setAudioTrack(track)
            slot.attach(track)
        case .video, .data:
            break
        }
    }
}
