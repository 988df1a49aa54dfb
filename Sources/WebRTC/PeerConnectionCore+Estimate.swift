import BandwidthEstimation
import ParleyCore
import ParleyRTP
import RTP

/// The receive-side bandwidth estimate of what transceivers receive (draft-ietf-rmcat-gcc-02 §5):
/// every received video packet that carries abs-send-time goes to one `RemoteBitrateEstimator`
/// for the transport, and its estimate goes back to the sender in REMB
/// (draft-alvestrand-rmcat-remb-03) for every received video SSRC — once a second, and at once
/// when it falls by more than 3 %. An SFU picks our layers by it; a peer's encoders follow it.
extension PeerConnectionCore {
    /// A received video packet of `size` bytes in a section whose answer kept abs-send-time
    /// (`id`): its 24-bit send time to the estimator. Allocates nothing.
    func noteArrival(_ view: RTPPacketView, absSendTimeID id: UInt8, size: Int, arrival: Double) {
        guard let element = view.extensionElement(id: id), element.count == 3 else { return }
        let sent = UInt32(element[0]) << 16 | UInt32(element[1]) << 8 | UInt32(element[2])
        media.bandwidth.received(absSendTime: sent, size: size, arrival: arrival)
    }

    /// Sends the estimate when one is due (`RemoteBitrateEstimator.report(now:)`).
    func sendEstimateIfDue(now: Double) {
        guard state == .connected || state == .disconnected, rtp.isReady,
              let bitrate = media.bandwidth.report(now: now) else { return }
        var ssrcs: [UInt32] = []
        for transceiver in media.list where transceiver.isVideo && !transceiver.isStopped
            && transceiver.negotiated?.absSendTimeExtensionID != nil {
            if let ssrc = transceiver.remoteSSRC { ssrcs.append(ssrc) }
        }
        guard !ssrcs.isEmpty else { return }
        do {
            if sendOnSelectedPair(try rtp.rembDatagram(bitrate: UInt64(bitrate), ssrcs: ssrcs)) {
                stats.rtcpSent += 1
                stats.estimatesSent += 1
                stats.receiveEstimate = bitrate
                Log.debug(.webrtc, "pc: REMB \(bitrate) bit/s (incoming \(media.bandwidth.incomingBitrate ?? 0), \(media.bandwidth.usage))")
            }
        } catch {
            stats.srtpErrors += 1
        }
    }
}
