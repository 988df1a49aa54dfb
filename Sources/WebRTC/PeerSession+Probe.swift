import ParleyCore
import ParleyNet
import ParleyRTP
import RTCP
import RTP
import SFU

/// Up-switch probes on the media path (issue 16): while the subscriber's `BandwidthProbe` runs its
/// cluster, padding-only packets (`RTPPaddingPacket`) go out on the retransmission stream (RFC 4588)
/// of a video slot that forwards a simulcast layer now, at `SubscriberBudget.paddingRate` — what the next step needs
/// above what is forwarded — stamped with abs-send-time where the slot negotiated it, so the
/// receiver's estimator sees the path carry the step before the SFU takes it. The loop's padding
/// pacer (`MediaTransportCore+Probes`) calls `sendPadding` every `paddingInterval`; each packet is
/// written and protected in a send-batch slot, nothing allocated.
extension PeerSession {
    /// Padding owed is capped at this many seconds of the rate (a late pacer does not burst).
    static let paddingBurst = 0.02

    /// A video slot that can carry a probe's padding: switched on, forwarding a simulcast layer
    /// (the steps probes test are layers), with a retransmission stream (padding on the media
    /// stream would leave gaps its receiver asks for).
    func paddingSlot() -> Int? {
        var track = 0
        while track < slotVideo.count {
            if let video = slotVideo[track], video.rtx != nil, !video.switchedOff, video.layer != nil,
               roomSources.indices.contains(track), roomSources[track] != nil { return track }
            track += 1
        }
        return nil
    }

    /// A probe started: its padding goes on slot `track` from now.
    func startPadding(track: Int, now: Double) {
        downlink.paddingTrack = track
        downlink.paddingCredit = 0
        downlink.lastPaddingAt = now
        downlink.probeReport = nil
        Log.debug(.webrtc, "session \(id): probing \(downlink.budget.prober.target ?? 0) bit/s with padding on slot \(track) "
                  + "(forwarding \(downlink.forwarding))")
    }

    /// Whether a probe's padding is due (the pacer runs while one is).
    var isPadding: Bool { downlink.paddingTrack != nil }

    /// Sends the padding owed since the last call into `batch`; ends the padding when the probe's
    /// cluster is over (then sends our sender report, whose answer measures the round trip through
    /// the probed path: `BandwidthProbe`) or its slot can no longer carry it. Returns the
    /// datagrams queued.
    func sendPadding(now: Double, batch: UDPSendBatch) -> Int {
        guard let track = downlink.paddingTrack else { return 0 }
        let rate = downlink.budget.paddingRate(forwarding: downlink.forwarding, now: now)
        guard rate > 0, state == .connected, let destination = selectedSocketAddress, slotVideo.indices.contains(track),
              let video = slotVideo[track], let rtx = video.rtx, !video.switchedOff else {
            downlink.paddingTrack = nil
            return downlink.budget.prober.clusterEnded(now: now) ? sendProbeReport(now: now, batch: batch) : 0
        }
        let bytesPerSecond = Double(rate) / 8
        let elapsed = max(now - downlink.lastPaddingAt, 0)
        downlink.lastPaddingAt = now
        downlink.paddingCredit = min(downlink.paddingCredit + bytesPerSecond * elapsed,
                                     bytesPerSecond * Self.paddingBurst + Double(RTPPaddingPacket.length))
        let stamp = video.absSendTimeID.map { (id: $0, value: AbsoluteSendTime.value(seconds: now)) }
        let timestamp = tracks[track].munger.lastTimestamp
        var sequence = rtx.nextSequence
        var queued = 0
        while downlink.paddingCredit >= Double(RTPPaddingPacket.length) {
            let sent = batch.withUnsafeSlot(to: destination) { slot in
                let length = RTPPaddingPacket.write(into: slot, ssrc: rtx.ssrc, payloadType: rtx.payloadType,
                                                    sequenceNumber: sequence, timestamp: timestamp, absSendTime: stamp)
                return length < 0 ? -1 : protect(slot, length: length)
            }
            guard sent else { break }
            sequence &+= 1
            downlink.paddingCredit -= Double(RTPPaddingPacket.length)
            queued += 1
        }
        slotVideo[track]?.rtx?.nextSequence = sequence
        counters.paddingSent += queued
        return queued
    }

    /// Our sender reports now (once per probe, as its cluster ends), their LSR kept; the regular
    /// reports wait so that the receiver's next report answers this one. Returns the datagrams queued.
    private func sendProbeReport(now: Double, batch: UDPSendBatch) -> Int {
        guard state == .connected, let destination = selectedSocketAddress else { return 0 }
        let ntp = NTPTime.now()
        guard let bytes = try? rtp.reportDatagram(now: now, ntp: ntp), batch.append(bytes, to: destination) else { return 0 }
        downlink.probeReport = NTPTime.compact(ntp)
        nextRTCPAt = max(nextRTCPAt, now + configuration.rtcpInterval.seconds * 1.5)
        counters.rtcpSent += 1
        return 1
    }
}
