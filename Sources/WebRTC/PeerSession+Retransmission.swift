import ParleyCore
import ParleyNet
import ParleyRTP
import RTCP
import RTP
import SFU

/// Loss recovery toward room subscribers (RFC 4585 §6.2.1): each publisher's video is kept once,
/// unprotected, per layer (`RoomInbound.packets`), and each slot keeps only how each packet left
/// (`RTPForwardLog`), so a subscriber's NACK is answered by rebuilding the packet from the
/// source's cache through the same `writeForwarded` — the same bytes, hence the same SRTP packet —
/// whatever the slot forwarded since (another layer, another publisher). Memory grows with the
/// publishers, not with publishers × subscribers.
extension PeerSession {
    /// Retransmissions one subscriber may have: 300 packets a second (about 3 Mbit/s), 300 at once,
    /// while its downlink shows no limit; once it does, its video budget's worth of 1,200-byte
    /// packets a second (at least 30), as libwebrtc's senders bound their retransmissions by their
    /// estimate, so resending what a congested path lost does not congest it without end.
    static func makeRetransmissionAllowance() -> PacketAllowance { PacketAllowance(rate: 300, burst: 300) }

    /// Fits the retransmission allowance to the subscriber's budget (each allocation).
    func fitRetransmissionAllowance() {
        let rate = downlink.budget.bitrate.map { min(300, max(30, Double($0) / 9_600)) } ?? 300
        retransmissionAllowance.rate = rate
        retransmissionAllowance.burst = rate
    }

    /// Sends again what the peer's NACKs ask of our video slots, while it is kept (1 s).
    func answerSlotNACKs(_ nacks: [TransportLayerNACK], to destination: SocketAddress, now: Double, out: inout [Datagram]) {
        for nack in nacks {
            guard let track = tracks.firstIndex(where: { $0.ssrc == nack.mediaSSRC && $0.kind == .video }),
                  track < forwardLogs.count, forwardLogs[track] != nil else { continue }
            // A copy sent less than a round trip ago (at least 20 ms) may still arrive.
            let interval = max(rtp.sendStreams[track].roundTripTime?.seconds ?? 0.1, 0.02)
            var sent = 0, missed = 0, refused = 0, pending = 0
            for pair in nack.pairs {
                pair.forEachSequenceNumber { sequence in
                    switch forwardLogs[track]!.resend(sequence, now: now, interval: interval) {
                    case .failure(.notKept): missed += 1
                    case .failure(.recentlyResent): pending += 1
                    case .success(let entry):
                        guard retransmissionAllowance.take(now: now) else {
                            refused += 1
                            return
                        }
                        if resend(entry, track: track, to: destination, now: now, out: &out) { sent += 1 } else { missed += 1 }
                    }
                }
            }
            counters.retransmissionsSent += sent
            counters.retransmissionsMissed += missed
            counters.retransmissionsRefused += refused
            Log.debug(.webrtc, "session \(id): NACK on slot \(track): \(sent) sent again, \(pending) sent within a round trip, "
                      + "\(missed) no longer kept, \(refused) over the allowance")
        }
    }

    /// Rebuilds the packet `entry` describes, of slot `track`, from its source's cache and queues it.
    private func resend(_ entry: RTPForwardLog.Entry, track: Int, to destination: SocketAddress, now: Double,
                        out: inout [Datagram]) -> Bool {
        guard let source = roomSources[track], source.inbound < source.session.roomInbound.count else { return false }
        let inbound = source.session.roomInbound[source.inbound]
        let layer = inbound.layers?.layer(ssrc: entry.sourceSSRC) ?? 0
        guard inbound.packets.indices.contains(layer) else { return false }
        let stamp = entry.absSendTime.flatMap { value in slotVideo[track]?.absSendTimeID.map { (id: $0, value: value) } }
        let pictures = entry.pictureID == nil && entry.tl0PictureIndex == nil
            ? nil : (pictureID: entry.pictureID, tl0PictureIndex: entry.tl0PictureIndex)
        var sent = false
        let rtx = slotVideo[track]?.rtx
        inbound.packets[layer].withPacket(entry.sourceSequence, now: now) { bytes in
            guard let packet = try? RTPPacketView(bytes), packet.ssrc == entry.sourceSSRC else { return }
            let trailer = rtp.trailerLength
            retransmitBuffer.withUnsafeMutableBytes { buffer in
                // 2 bytes spare for RTX's original sequence number.
                let room = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(buffer.count - trailer - 2)])
                // An RTX packet is a new packet: sent now, with its own abs-send-time.
                let sendTime = rtx == nil ? stamp : stamp.map { (id: $0.id, value: AbsoluteSendTime.value(seconds: now)) }
                guard var written = Self.writeForwarded(packet, into: room, update: entry.update, stamp: sendTime, pictures: pictures)
                else { return }
                if let rtx {
                    written.length = RTXPacket.wrap(buffer, length: written.length, payloadStart: written.payload.lowerBound,
                                                    ssrc: rtx.ssrc, payloadType: rtx.payloadType, sequenceNumber: rtx.nextSequence)
                }
                let protected = protect(buffer, length: written.length)
                guard protected > 0 else { return }
                out.append(Datagram(address: destination, bytes: Array(buffer[0..<protected])))
                sent = true
            }
        }
        if sent, rtx != nil { slotVideo[track]?.rtx?.nextSequence &+= 1 }
        return sent
    }
}
