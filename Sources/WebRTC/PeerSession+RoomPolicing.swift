import ParleyNet
import ParleyRTP
import RTP

/// Publishers' bitrate caps, announced (REMB, `announcePublishCap`) and enforced: REMB only asks,
/// so a publisher that ignores it would take every subscriber's link. Each published section has
/// a byte allowance; what exceeds it is dropped before the section's slots see it (subscribers
/// then see a loss, as on a congested uplink; RFC 8083 §4 asks for such circuit breakers).
extension PeerSession {
    /// Audio's cap whatever the configuration: well above any Opus or G.711 stream (512 kbit/s
    /// stereo Opus is Opus's own maximum, RFC 6716 §2.1.1).
    static let publishedAudioBitrateCap = 256_000.0
    /// Video may exceed its announced cap by this factor (encoders overshoot around key frames).
    static let publishedVideoHeadroom = 1.5

    /// The allowance of a published section, in bytes: audio at `publishedAudioBitrateCap`, video at
    /// `publishedVideoHeadroom` times `cap` (none when `cap` is 0); a burst of a second's worth,
    /// at least 64 KiB (a large key frame).
    static func publishAllowance(audio: Bool, cap: Int) -> PacketAllowance? {
        let bits = audio ? publishedAudioBitrateCap : Double(cap) * publishedVideoHeadroom
        guard bits > 0 else { return nil }
        let rate = bits / 8
        return PacketAllowance(rate: rate, burst: max(rate, audio ? rate : 65_536))
    }

    /// Whether a packet of `bytes` of published section `inbound` fits its allowance; one that
    /// does not is counted (`publishOverRate`) and not forwarded.
    func admitPublished(inbound: Int, bytes: Int, now: Double) -> Bool {
        guard roomInbound[inbound].allowance?.take(Double(bytes), now: now) != false else {
            counters.publishOverRate += 1
            return false
        }
        return true
    }

    /// What a published packet carries: its payload, or a RED packet's primary (RFC 2198 §3) and
    /// the parsed RED payload (nil when it does not parse). An audio packet also tells the
    /// section's `REDLossRecovery` what arrived: the blocks of a RED packet that stand for packets
    /// lost before it go to `recoveredBlocks` (cleared for every packet), for slots without RED.
    func roomFrame(_ view: RTPPacketView, kind: RTPPayloadFormat.Kind,
                   inbound: Int) -> (frame: UnsafeRawBufferPointer, red: REDPayloadView?)? {
        recoveredBlocks.removeAll(keepingCapacity: true)
        guard kind == .redundantAudio else {
            if kind == .audio { roomInbound[inbound].redRecovery.observe(sequenceNumber: view.sequenceNumber) }
            return (view.payload, nil)
        }
        guard let red = try? REDPayloadView(view.payload) else { return nil }
        counters.redReceived += 1
        roomInbound[inbound].redRecovery.recover(sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, red: red,
                                                 into: &recoveredBlocks)
        counters.redBlocksRecovered += recoveredBlocks.count
        return (red.primary.data, red)
    }

    /// Sends the frames RED recovered (`recoveredBlocks`, of `red`) on slot `track` of `sink` as
    /// packets of their own, before the packet that carried them: a subscriber without RED gets
    /// the packets it would have lost (RFC 2198 §4, as `receiveCallRTP` does for calls). Returns
    /// the datagrams queued.
    func sendRecovered(_ red: REDPayloadView, ssrc: UInt32, to sink: PeerSession, track: Int, now: Double,
                       batch: UDPSendBatch) -> Int {
        var queued = 0
        var block = 0
        while block < recoveredBlocks.count {
            let recovered = recoveredBlocks[block]
            if sink.sendForwarded(ssrc: ssrc, sequenceNumber: recovered.sequenceNumber, timestamp: recovered.timestamp,
                                  marker: false, kind: .audio, source: nil, frame: red[recovered.block].data,
                                  track: track, now: now, batch: batch) { queued += 1 }
            block += 1
        }
        return queued
    }

    /// Tells the peer the most each of its published video sections may send (REMB, once per RTCP
    /// interval), so one publisher cannot take the subscribers' links: browsers cap their
    /// encoders at it, with transport-wide CC or without.
    func announcePublishCap(out: inout [Datagram]) {
        guard configuration.publishBitrateCap > 0, let destination = selectedSocketAddress else { return }
        var ssrcs: [UInt32] = []
        for inbound in roomInbound where inbound.codec.audio == nil { ssrcs += inbound.ssrcs.prefix(1) }
        guard !ssrcs.isEmpty else { return }
        do {
            out.append(Datagram(address: destination,
                                bytes: try rtp.rembDatagram(bitrate: UInt64(configuration.publishBitrateCap), ssrcs: ssrcs)))
            counters.rtcpSent += 1
        } catch {
            count(error)
        }
    }
}
