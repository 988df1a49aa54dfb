import ParleyCore
import ParleyNet
import ParleyRTP

/// Forwarding between a call session and a leg on another transport's event loop (a SIP leg)
/// when both negotiated the same codec: no decoding, each side's own SRTP. Packets cross loops
/// through an `RTPPacketHandoff` (bounded, allocated once); the sink rewrites them onto its audio
/// track (`RTPForwardingTrack`), so sequence gaps stay gaps (RFC 3550 §5.1), RFC 4733 events
/// keep their timestamps and RED (RFC 2198) is added when the session negotiated it. Only live
/// call sessions take part.
extension MediaTransportServer: RTPHandoffServer {
    public func executeOnLoop(_ task: @escaping @Sendable () -> Void) { loop.execute(task) }

    public func drainHandoff(_ handoff: RTPPacketHandoff, into sink: String) { core.value.drain(handoff, into: sink) }

    public func changeHandoff(_ change: RTPHandoffChange, _ handoff: RTPPacketHandoff, leg id: String) async -> Bool {
        let core = self.core
        return await onLoop {
            guard let session = core.value.sessions[id], session.kind == .call else { return false }
            if change == .feed || change == .push, session.state.isTerminal { return false }
            session.apply(change, handoff)
            return true
        }
    }
}

extension PeerSession: RTPHandoffLeg {
    func handoffOriginChanged() { tracks[0].sourceChanged() }
}

extension MediaTransportCore {
    /// Sends what waits in `handoff` on session `id`'s audio track (one `sendmmsg` for the lot).
    func drain(_ handoff: RTPPacketHandoff, into id: String) {
        guard let session = sessions[id], session.isFed(by: handoff), let batch = socket?.sendBatch else {
            handoff.drain { _ in }
            return
        }
        let now = self.now
        var sent = 0
        handoff.drain { packet in
            if session.sendForwarded(ssrc: packet.ssrc, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                     marker: packet.marker, kind: packet.kind, source: nil, frame: packet.payload, now: now,
                                     batch: batch) { sent += 1 }
        }
        stats.datagramsSent += sent
        stats.rtpForwarded += sent
        stats.handedOver += sent
        flush()
    }
}
