import ParleyCore
import ParleyNet
import RTP
import SFU

/// Taps on room sessions' published sections, for recordings: the same off-loop delivery as a
/// call session's audio tap (`setAudioTap`), per section and for every codec. A tapped packet is
/// copied once (its payload and header fields) after SRTP is removed, before forwarding.
extension MediaTransportServer {
    /// Hands every RTP packet the peer of `section`'s session sends in that section to `tap`, in
    /// order on a task of the tap's own; nil removes it. Up to 6,000 packets (a minute of 20 ms
    /// audio, tens of seconds of video) wait for a slow tap before the oldest are dropped. A
    /// video section is asked for a key frame, so a recording starts with one. Returns the
    /// section's codec, or nil when no live room session sends in it (the tap is then finished).
    @discardableResult
    public func setTap(section: MediaSectionAddress, _ tap: (@Sendable (MediaTapPacket) -> Void)?) async -> MediaCodec? {
        let delivery = tap.map { OffLoopDelivery(limit: 6_000, handler: $0) }
        let core = self.core
        return await onLoop { core.value.setTap(delivery, section: section) }
    }

    /// Asks the peer of `section` for a key frame (PLI, RFC 4585 §6.3.1), of the simulcast layer
    /// sent with `ssrc` when it is one; within the per-section throttle.
    public func requestKeyframe(section: MediaSectionAddress, ssrc: UInt32? = nil) async {
        let core = self.core
        await onLoop { core.value.requestKeyframe(section: section, ssrc: ssrc) }
    }
}

extension MediaTransportCore {
    func setTap(_ tap: OffLoopDelivery<MediaTapPacket>?, section: MediaSectionAddress) -> MediaCodec? {
        sectionTaps.removeValue(forKey: section)?.finish()
        guard let session = sessions[section.session], session.kind == .room, !session.state.isTerminal,
              let inbound = session.roomInbound.firstIndex(where: { $0.mid == section.mid }) else {
            tap?.finish()
            return nil
        }
        session.roomInbound[inbound].tap = tap
        if let tap {
            sectionTaps[section] = tap
            session.requestKeyframe(inbound: inbound, now: now, out: &outbox)
            for layer in session.roomInbound[inbound].layers?.layers.indices ?? 0..<0 {
                session.requestKeyframe(inbound: inbound, layer: layer, now: now, out: &outbox)
            }
            flush()
        }
        return session.roomInbound[inbound].codec
    }

    func requestKeyframe(section: MediaSectionAddress, ssrc: UInt32?) {
        guard let session = sessions[section.session], session.kind == .room, !session.state.isTerminal,
              let inbound = session.roomInbound.firstIndex(where: { $0.mid == section.mid }) else { return }
        let layer = ssrc.flatMap { session.roomInbound[inbound].layers?.layer(ssrc: $0) }
        session.requestKeyframe(inbound: inbound, layer: layer, now: now, out: &outbox)
        flush()
    }
}

extension PeerSession {
    /// A copy of a published section's packet for its tap (recording), before forwarding.
    func tapSection(_ view: RTPPacketView, frame: UnsafeRawBufferPointer, payloadType: UInt8, codec: MediaCodec, now: Double,
                    tap: OffLoopDelivery<MediaTapPacket>) {
        tap.send(MediaTapPacket(payload: Array(frame), ssrc: view.ssrc, sequenceNumber: view.sequenceNumber,
                                timestamp: view.timestamp, marker: view.marker, payloadType: payloadType,
                                codec: codec, arrival: now))
    }
}
