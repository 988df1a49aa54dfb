import ParleyCore
import ParleyRTP
import RTCP
import RTP

/// What transceivers send: RTP packets numbered per stream, with the header extensions the answer
/// took (mid, rid, abs-send-time, transport-wide sequence number, audio level), protected with
/// SRTP; and the peer's feedback on them — NACKs answered from each stream's cache (as RTX when
/// negotiated, RFC 4588), key frame requests and REMB surfaced as `TransceiverEvent`s.
extension PeerConnectionCore {
    /// One packet of `payload` on transceiver `index` (its layer `rid` when simulcast).
    func send(_ payload: [UInt8], transceiver index: Int, rid: String?, timestamp: UInt32, marker: Bool, audioLevel: UInt8?) {
        guard index < media.list.count, let accepted = media.list[index].negotiated,
              let layer = layerIndex(index, rid: rid), rtp.isReady, state == .connected || state == .disconnected else {
            stats.sendDropped += 1
            return
        }
        let sequence = media.list[index].layers[layer].nextSequence
        media.list[index].layers[layer].nextSequence &+= 1
        let ssrc = media.list[index].layers[layer].ssrc
        let rid = media.list[index].layers[layer].ridBytes
        let transportSequence = media.transportSequence
        let mid = media.list[index].handle.midBytes
        let trailer = rtp.trailerLength
        let arrival = now
        let length: Int? = sendBuffer.withUnsafeMutableBytes { buffer -> Int? in
            let base = buffer.baseAddress!
            let room = buffer.count - trailer - 2  // 2 spare for RTX's original sequence number
            RTPFixedHeader.write(to: base, payloadType: accepted.payloadType, marker: marker, sequenceNumber: sequence,
                                 timestamp: timestamp, ssrc: ssrc)
            var extensions = OneByteExtensionWriter(base: base, start: RTPFixedHeader.size, capacity: room)
            // RFC 8843 §15.2 asks the mid on at least the first packets; it costs a few bytes: always.
            if let id = accepted.midExtensionID { extensions.append(id: id, bytes: mid) }
            if let id = accepted.streamIDExtensionID, !rid.isEmpty { extensions.append(id: id, bytes: rid) }
            if let id = accepted.absSendTimeExtensionID {
                extensions.append(id: id, value: AbsoluteSendTime.value(seconds: arrival), length: 3)
            }
            if let id = accepted.transportCCExtensionID { extensions.append(id: id, value: UInt32(transportSequence), length: 2) }
            if let id = accepted.audioLevelExtensionID, let audioLevel {
                extensions.append(id: id, value: UInt32(min(audioLevel, 127)), length: 1)  // RFC 6464 §3: V=0, level
            }
            let payloadStart = extensions.finish()
            if payloadStart > RTPFixedHeader.size { buffer[0] |= 0x10 }
            guard payloadStart + payload.count <= room else { return nil }
            payload.withUnsafeBytes { if let source = $0.baseAddress { (base + payloadStart).copyMemory(from: source, byteCount: $0.count) } }
            return payloadStart + payload.count
        }
        guard let length else {
            stats.sendDropped += 1
            return
        }
        if accepted.transportCCExtensionID != nil { media.transportSequence &+= 1 }
        if media.list[index].layers[layer].cache != nil {
            sendBuffer.withUnsafeBytes { bytes in
                media.list[index].layers[layer].cache!.store(UnsafeRawBufferPointer(rebasing: bytes[0..<length]),
                                                             sequenceNumber: sequence, now: arrival)
            }
        }
        if let stream = media.list[index].layers[layer].sendStream {
            rtp.noteSent(stream: stream, timestamp: timestamp, payloadBytes: payload.count, now: arrival)
        }
        media.list[index].layers[layer].packetsSent += 1
        media.list[index].layers[layer].payloadBytesSent += UInt64(payload.count)
        if media.list[index].kind == .video { stats.videoPacketsSent += 1 } else { stats.packetsSent += 1 }
        if media.list[index].layers[layer].dropNext > 0 {
            media.list[index].layers[layer].dropNext -= 1  // a simulated uplink loss: kept, not sent
            return
        }
        if !protectAndSend(length: length) { stats.sendDropped += 1 }
    }

    /// The layer of transceiver `index` that `rid` names (the only one when nil and not simulcast).
    func layerIndex(_ index: Int, rid: String?) -> Int? {
        let layers = media.list[index].layers
        guard let rid else { return layers.count == 1 ? 0 : nil }
        return layers.firstIndex { $0.rid == rid }
    }

    /// Protects `sendBuffer[0..<length]` in place and queues it on the selected pair.
    func protectAndSend(length: Int) -> Bool {
        let protected: Int? = sendBuffer.withUnsafeMutableBytes { try? rtp.protectRTP($0, length: length) }
        guard let protected else {
            stats.srtpErrors += 1
            return false
        }
        return sendOnSelectedPair(Array(sendBuffer[0..<protected]))
    }

    /// The peer's feedback on our transceivers' streams.
    func handleTransceiverFeedback(_ summary: RTCPReceiveSummary) {
        for ssrc in summary.keyframeRequests {
            guard let (index, layer) = media.byLocalSSRC[ssrc].map({ ($0.transceiver, $0.layer) }) else { continue }
            media.list[index].layers[layer].keyFrameRequests += 1
            media.sink?.yield(.keyFrameRequested(mid: media.list[index].mid, rid: media.list[index].layers[layer].rid))
        }
        if let bitrate = summary.receiverEstimate { media.sink?.yield(.receiverEstimatedBitrate(bitrate)) }
        for nack in summary.nacks {
            guard let stream = media.byLocalSSRC[nack.mediaSSRC] else { continue }
            resend(nack, transceiver: stream.transceiver, layer: stream.layer)
        }
    }

    /// Sends again what a Generic NACK (RFC 4585 §6.2.1) asks of one of our streams, while kept:
    /// on the stream's RTX SSRC and payload type when the answer took `rtx` (RFC 4588 §4), with its
    /// rid element renamed repaired-rid (RFC 8852 §3.2); else as it went.
    func resend(_ nack: TransportLayerNACK, transceiver index: Int, layer: Int) {
        guard let cache = media.list[index].layers[layer].cache, let accepted = media.list[index].negotiated else { return }
        let rtx: (payloadType: UInt8, ssrc: UInt32)? = accepted.rtxPayloadType.flatMap { pt in
            media.list[index].layers[layer].rtxSSRC.map { (pt, $0) }
        }
        let arrival = now
        for pair in nack.pairs {
            pair.forEachSequenceNumber { sequence in
                let rtxSequence = media.list[index].layers[layer].nextRTXSequence
                var length = 0
                cache.withPacket(sequence, now: arrival) { bytes in
                    length = sendBuffer.withUnsafeMutableBytes { buffer -> Int in
                        guard bytes.count + 2 + rtp.trailerLength <= buffer.count, let view = try? RTPPacketView(bytes) else { return 0 }
                        buffer.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                        guard let rtx else { return bytes.count }
                        if let range = view.extensionRange, view.extensionProfile == 0xBEDE, let rid = accepted.streamIDExtensionID,
                           let repaired = accepted.repairedStreamIDExtensionID {
                            Self.renameElement(in: UnsafeMutableRawBufferPointer(rebasing: buffer[range]), from: rid, to: repaired)
                        }
                        return RTXPacket.wrap(buffer, length: bytes.count, payloadStart: view.payloadRange.lowerBound, ssrc: rtx.ssrc,
                                              payloadType: rtx.payloadType, sequenceNumber: rtxSequence)
                    }
                }
                guard length > 0, protectAndSend(length: length) else { return }
                if rtx != nil { media.list[index].layers[layer].nextRTXSequence &+= 1 }
                media.list[index].layers[layer].retransmissionsSent += 1
                stats.retransmissionsSent += 1
            }
        }
        flush()
    }

    /// Gives one-byte elements (RFC 8285 §4.2) with id `from` the id `to`, in place, in an
    /// extension block's data.
    static func renameElement(in block: UnsafeMutableRawBufferPointer, from: UInt8, to: UInt8) {
        var offset = 0
        while offset < block.count {
            let id = block[offset] >> 4
            if id == 0 { offset += 1; continue }  // padding
            if id == 15 { return }  // reserved: stop (§4.2)
            let length = Int(block[offset] & 0x0F) + 1
            if id == from { block[offset] = to << 4 | block[offset] & 0x0F }
            offset += 1 + length
        }
    }
}
