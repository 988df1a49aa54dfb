import ParleyCore
import ParleyNet
import ParleyRTP

/// Forwarding between a SIP leg and a leg on another transport's event loop (a WebRTC call
/// session) when both negotiated the same codec: no decoding, each side's own SRTP. Packets cross
/// loops through an `RTPPacketHandoff` (bounded, allocated once); the sink rewrites them onto its
/// own stream with its `RTPForwardingTrack`, so sequence gaps stay gaps (RFC 3550 §5.1) and RFC
/// 4733 events keep their timestamps.
extension SIPMediaServer: RTPHandoffServer {
    public func executeOnLoop(_ task: @escaping @Sendable () -> Void) { loop.execute(task) }

    public func drainHandoff(_ handoff: RTPPacketHandoff, into sink: String) { core.value.drain(handoff, into: sink) }

    public func changeHandoff(_ change: RTPHandoffChange, _ handoff: RTPPacketHandoff, leg id: String) async -> Bool {
        let core = self.core
        return await onLoop {
            guard let leg = core.value.legs[id] else { return false }
            leg.apply(change, handoff)
            return true
        }
    }
}

extension SIPMediaLeg: RTPHandoffLeg {
    func handoffOriginChanged() { track.sourceChanged() }
}

extension SIPMediaCore {
    /// Sends what waits in `handoff` on leg `id`'s stream (one `sendmmsg` for the lot).
    func drain(_ handoff: RTPPacketHandoff, into id: String) {
        guard let leg = legs[id], leg.isFed(by: handoff) else {
            handoff.drain { _ in }
            return
        }
        let now = self.now
        handoff.drain { packet in
            if leg.sendForwarded(ssrc: packet.ssrc, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                 marker: packet.marker, kind: packet.kind, payload: packet.payload, now: now) {
                statistics.forwarded += 1
                statistics.handedOver += 1
            }
        }
        leg.socket.sendBatch.flush()
    }
}
