import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization
import WebRTC

/// Media reconnection: the connection lost its path (ICE consent, RFC 7675) while the room goes
/// on. The room is `.reconnecting` (53405) and restarts ICE (RFC 8445 §9) with a `room.offer`
/// carrying new credentials, again every 2 s while no path is found, for up to 30 s; the path
/// back gives `roomDidReconnect`, none in time ends the room with 53405.
extension Room {
    static let restartInterval: Duration = .seconds(2)
    static let restartAttempts = 15

    func mediaStateChanged(_ state: PeerConnection.State) {
        switch state {
        case .disconnected:
            let lost = inner.withLock { s -> Bool in
                guard s.state == .connected else { return false }
                s.state = .reconnecting
                return true
            }
            guard lost else { return }
            let error = ParleyError(.mediaConnection, reason: "the media connection lost its path")
            notify { $0.roomIsReconnecting(room: self, error: error) }
            restartMedia()
        case .connected:
            let back = inner.withLock { s -> Bool in
                guard s.state == .reconnecting else { return false }
                s.state = .connected
                return true
            }
            if back { notify { $0.roomDidReconnect(room: self) } }
        case .failed, .closed:
            // The server ending us closes the media first: its room.disconnected says why, so it
            // gets a moment to arrive before the media's failure is the reason.
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(2))
                guard let self, self.state != .disconnected else { return }
                self.lost(ParleyError(.mediaConnection, reason: "the media connection failed"))
            }
        default:
            break
        }
    }

    private func restartMedia() {
        guard let (media, channel, tracks) = inner.withLock({ s in s.media.flatMap { m in s.channel.map { (m, $0, s.described) } } })
        else { return }
        Task { [weak self] in
            for _ in 0..<Self.restartAttempts {
                guard let self, self.state == .reconnecting else { return }
                do throws(ParleyError) {
                    let offer = try await media.peer.restartICE()
                    inner.withLock { $0.offersSent += 1 }
                    channel.send(.roomOffer(RoomOffer(offer: offer, tracks: tracks)), id: "room-restart")
                } catch {
                    Log.info(.platform, "room \(self.sid ?? "-"): ICE restart not made: \(error)")
                }
                try? await Task.sleep(for: Self.restartInterval)
            }
            guard let self, self.state == .reconnecting else { return }
            self.lost(ParleyError(.mediaConnection, reason: "no media path came back in 30 s"))
        }
    }
}
