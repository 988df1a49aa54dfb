import ParleyNet
import ParleyRTP
import RTP
import SFU
import VP8

extension PeerSession {
    /// Writes the packet `update` describes for track `index` into a send-batch slot for
    /// `destination` and protects it there; returns the payload bytes queued, or nil.
    ///
    /// `source` is the received packet for payloads that leave as they came (its header rewritten,
    /// RED block types renamed, RFC 2198 §3); `frame` is the codec frame itself — the payload of a
    /// played or recovered frame, a RED packet's primary — which a RED track wraps or remembers so
    /// a later wrapped packet can repeat it. Nothing allocates.
    func queuePacket(_ update: RTPHeaderUpdate, track index: Int, source: RTPPacketView?, frame: UnsafeRawBufferPointer,
                     vp8: VP8PayloadDescriptor.Fields? = nil, to destination: SocketAddress, now: Double,
                     batch: UDPSendBatch) -> Int? {
        let trailer = rtp.trailerLength
        let blockPayloadType = tracks[index].mediaPayloadType
        var payloadBytes = 0
        let queued = batch.withUnsafeSlot(to: destination) { slot -> Int in
            let base = slot.baseAddress!
            let room = min(slot.count, batch.maxDatagramBytes) - trailer
            var length = 0
            switch (update.payload, source) {
            case (.unchanged, let packet?), (.renameREDBlocks, let packet?):
                let stamp = index < slotVideo.count
                    ? slotVideo[index]?.absSendTimeID.map { (id: $0, value: AbsoluteSendTime.value(seconds: now)) } : nil
                // A VP8 slot numbers pictures on across its sources (RFC 7741 §4.2).
                var pictures: (pictureID: UInt16?, tl0PictureIndex: UInt8?)?
                if let vp8, index < slotVideo.count, slotVideo[index] != nil {
                    pictures = slotVideo[index]!.pictures.map(pictureID: vp8.pictureID, tl0PictureIndex: vp8.tl0PictureIndex)
                }
                guard let written = Self.writeForwarded(packet, into: UnsafeMutableRawBufferPointer(rebasing: slot[0..<room]),
                                                        update: update, stamp: stamp, pictures: pictures) else { return -1 }
                length = written.length
                payloadBytes = written.payload.count
                if index < forwardLogs.count, forwardLogs[index] != nil {
                    forwardLogs[index]!.record(RTPForwardLog.Entry(
                        update: update, sourceSSRC: packet.ssrc, sourceSequence: packet.sequenceNumber, absSendTime: stamp?.value,
                        pictureID: pictures?.pictureID, tl0PictureIndex: pictures?.tl0PictureIndex, sentAt: now))
                }
            case (.wrapInRED, _):
                guard room > RTPFixedHeader.size,
                      let built = tracks[index].red?.encode(
                        primary: frame, timestamp: update.timestamp, blockPayloadType: blockPayloadType,
                        into: UnsafeMutableRawBufferPointer(rebasing: slot[RTPFixedHeader.size..<room])) else { return -1 }
                update.write(to: base)
                length = RTPFixedHeader.size + built.length
                payloadBytes = built.length
            default:
                // A frame of its own: played, recovered, or a RED primary for a leg without RED.
                length = RTPFixedHeader.size + frame.count
                guard length <= room else { return -1 }
                update.write(to: base)
                if let bytes = frame.baseAddress { (base + RTPFixedHeader.size).copyMemory(from: bytes, byteCount: frame.count) }
                payloadBytes = frame.count
            }
            let protected = protect(slot, length: length)
            // Kept as it went, for the peer's NACKs (tracks that negotiated them).
            if protected > 0, index < retransmissions.count {
                retransmissions[index]?.store(UnsafeRawBufferPointer(rebasing: slot[0..<protected]),
                                              sequenceNumber: update.sequenceNumber, now: now)
            }
            return protected
        }
        guard queued else { return nil }
        if update.payload == .wrapInRED {
            counters.redWrapped += 1
        } else if tracks[index].red != nil, update.payloadType != tracks[index].telephoneEventPayloadType {
            tracks[index].red?.remember(frame, timestamp: update.timestamp)
        }
        return payloadBytes
    }

    /// Writes a received `packet` into `slot` as a track sends it on: the header `update` gives;
    /// with `stamp`, one abs-send-time element in place of the source's header extension; VP8
    /// picture numbers `pictures` (RFC 7741 §4.2); RED block types renamed (RFC 2198 §3). The
    /// length written and where the payload sits, or nil when it does not fit. Forwarding and
    /// retransmission both write through it, so a packet sent again is the packet that went.
    static func writeForwarded(_ packet: RTPPacketView, into slot: UnsafeMutableRawBufferPointer, update: RTPHeaderUpdate,
                               stamp: (id: UInt8, value: UInt32)?,
                               pictures: (pictureID: UInt16?, tl0PictureIndex: UInt8?)?) -> (length: Int, payload: Range<Int>)? {
        var length = packet.bytes.count
        var payloadRange = packet.payloadRange
        if let stamp {
            guard let copied = AbsoluteSendTime.copy(packet, into: slot, id: stamp.id, value: stamp.value) else { return nil }
            (length, payloadRange) = copied
        } else {
            guard length <= slot.count, let base = slot.baseAddress else { return nil }
            base.copyMemory(from: packet.bytes.baseAddress!, byteCount: length)
        }
        guard let rewriter = try? RTPHeaderRewriter(UnsafeMutableRawBufferPointer(rebasing: slot[0..<length])) else { return nil }
        update.apply(to: rewriter)
        if let pictures {
            VP8PayloadDescriptor.rewrite(UnsafeMutableRawBufferPointer(rebasing: slot[payloadRange]),
                                         pictureID: pictures.pictureID, tl0PictureIndex: pictures.tl0PictureIndex)
        }
        if case .renameREDBlocks(let payloadType) = update.payload {
            REDPayloadView.renameBlocks(in: UnsafeMutableRawBufferPointer(rebasing: slot[payloadRange]), to: payloadType)
        }
        return (length, payloadRange)
    }
}
