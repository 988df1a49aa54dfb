import ParleyCore
import ParleyRTP
import RTP

/// What transceivers receive: SRTP removed and recorded per SSRC by the RTP session (its reports
/// carry a block per receive stream), demultiplexed by SSRC — the answer's `a=ssrc`, or an
/// unknown SSRC bound by its mid element (RFC 8843 §9.2) — RTX unwrapped (RFC 4588 §4), video
/// gaps asked for again (Generic NACK, RFC 4585 §6.2.1), and delivered on the transceiver.
extension PeerConnectionCore {
    func receiveTransceiverRTP(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= RTPFixedHeader.size, bytes.count <= scratch.count else { return }
        // SSRC and sequence number are in the clear under SRTP (RFC 3711 §3.1): a simulated
        // downlink loss drops the packet before its index is spent in the replay window.
        let ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
        if let bound = media.bySSRC[ssrc], !bound.rtx, media.list[bound.transceiver].dropIncoming > 0 {
            media.list[bound.transceiver].dropIncoming -= 1
            return
        }
        let arrival = now
        let midID = media.midExtensionID
        let delivery: (index: Int, packet: PeerConnection.ReceivedRTP)? = scratch.withUnsafeMutableBytes { buffer in
            buffer.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            let received: RTPReceivedPacket
            do throws(RTPSessionError) { received = try rtp.receiveRTP(buffer, length: bytes.count, arrival: arrival) } catch {
                if case .srtp = error { stats.srtpErrors += 1 }
                return nil
            }
            let view = received.view
            guard let bound = media.bind(ssrc: view.ssrc, mid: midID.flatMap { view.extensionElement(id: $0) }),
                  let accepted = media.list[bound.transceiver].negotiated else {
                media.unroutable += 1
                return nil
            }
            let index = bound.transceiver
            if media.list[index].isVideo, let id = accepted.absSendTimeExtensionID {
                noteArrival(view, absSendTimeID: id, size: bytes.count, arrival: arrival)
            }
            guard !bound.rtx else { return unwrapRTX(view, transceiver: index, accepted: accepted) }
            guard view.payloadType == accepted.payloadType else {
                media.unroutable += 1
                return nil
            }
            return (index, PeerConnection.ReceivedRTP(payload: Array(view.payload), payloadType: view.payloadType,
                                                      sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                                                      ssrc: view.ssrc, marker: view.marker))
        }
        sendEstimateIfDue(now: arrival)
        guard let delivery else { return }
        let index = delivery.index
        var packet = delivery.packet
        if media.list[index].nacks != nil, requestMissingVideo(transceiver: index, sequenceNumber: packet.sequenceNumber,
                                                               arrival: arrival) {
            packet.isRetransmission = true
        }
        media.list[index].packetsReceived += 1
        if packet.isRetransmission { media.list[index].retransmissionsReceived += 1 }
        if media.list[index].kind == .video {
            stats.videoPacketsReceived += 1
        } else {
            stats.packetsReceived += 1
            stats.payloadBytesReceived += UInt64(packet.payload.count)
        }
        // Padding-only packets (bandwidth probes) count for loss recovery, but carry nothing.
        if !packet.payload.isEmpty { media.list[index].handle.receivedSink.yield(packet) }
    }

    /// An RTX packet (RFC 4588 §4) as the packet it repairs: the original sequence number from
    /// the first two payload bytes, the media SSRC and payload type.
    private func unwrapRTX(_ view: RTPPacketView, transceiver index: Int,
                           accepted: NegotiatedTransceiver) -> (index: Int, packet: PeerConnection.ReceivedRTP)? {
        guard view.payloadType == accepted.rtxPayloadType, view.payload.count >= 2 else {
            media.unroutable += 1
            return nil
        }
        let payload = view.payload
        let original = UInt16(payload[0]) << 8 | UInt16(payload[1])
        return (index, PeerConnection.ReceivedRTP(payload: Array(payload[2...]), payloadType: accepted.payloadType,
                                                  sequenceNumber: original, timestamp: view.timestamp,
                                                  ssrc: media.list[index].remoteSSRC ?? view.ssrc, isRetransmission: true,
                                                  marker: view.marker))
    }

    /// Notes a video packet and sends a NACK for what is missing before it, while a
    /// retransmission can still be shown (`videoNACKPlayoutBudget`). True when the packet is one
    /// we asked for again (or gave up on).
    private func requestMissingVideo(transceiver index: Int, sequenceNumber: UInt16, arrival: Double) -> Bool {
        let late = media.list[index].nacks!.received(sequenceNumber, now: arrival)
        let rtt = rtp.sendStreams.lazy.compactMap(\.roundTripTime).first?.seconds ?? 0.05
        media.list[index].nacks!.due(now: arrival, roundTripTime: rtt, playoutBudget: Self.videoNACKPlayoutBudget, into: &nackDue)
        guard !nackDue.isEmpty, let ssrc = media.list[index].remoteSSRC else { return late }
        do {
            let from = rtp.sendStreams.isEmpty ? nil : 0
            if sendOnSelectedPair(try rtp.nackDatagram(from: from, to: ssrc, lost: nackDue)) {
                media.list[index].nacksSent += 1
                stats.nacksSent += 1
            }
        } catch {
            stats.srtpErrors += 1
        }
        return late
    }

    /// Asks the sender of what transceiver `index` receives for a key frame (PLI, RFC 4585 §6.3.1).
    func requestKeyFrame(transceiver index: Int) {
        guard index < media.list.count, media.list[index].negotiated?.keyFrameRequests == true,
              let ssrc = media.list[index].remoteSSRC, rtp.isReady, state == .connected || state == .disconnected else { return }
        do {
            if sendOnSelectedPair(try rtp.keyframeRequestDatagram(from: rtp.sendStreams.isEmpty ? nil : 0, to: ssrc)) {
                stats.rtcpSent += 1
            }
        } catch {
            stats.srtpErrors += 1
        }
        flush()
    }

    /// How long a lost video packet is worth asking for again: receivers hold video frames
    /// longer than audio.
    static let videoNACKPlayoutBudget = 0.3
}
