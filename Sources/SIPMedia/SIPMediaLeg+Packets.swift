import ParleyCore
import ParleyNet
import ParleyRTP
import RTCP
import RTP

/// The packet path of a SIP leg: a datagram is read in place in the socket's receive slot,
/// unprotected there (SDES-SRTP) by the leg's `RTPSession`, then copied once per sink into that
/// sink's send-batch slot with the sink's header (`RTPForwardingTrack`) and protected there, or
/// into a hand-off's slot for a leg on another transport (`RTPPacketHandoff`). Nothing allocates
/// per packet except a tap's copy of the payload, by design.
extension SIPMediaLeg {
    enum Received {
        case dropped
        case rtcp
        case audio
        case digit(Character?, Character?)
    }

    /// One datagram from the leg's socket. RTCP is told from RTP by its packet type (RFC 5761 §4).
    func receive(_ datagram: UDPReceivedDatagram, now: Double, statistics: inout SIPMediaStatistics) -> Received {
        let bytes = datagram.bytes
        guard bytes.count >= RTPFixedHeader.size, bytes[0] >> 6 == 2, parameters != nil else { return .dropped }
        if (192...223).contains(bytes[1]) {
            guard (try? rtp.receiveRTCP(bytes, length: bytes.count, arrival: now, arrivalNTP: NTPTime.now())) != nil else {
                return .dropped
            }
            statistics.rtcpReceived += 1
            return .rtcp
        }
        // Plain RTP from anyone but the latched peer could be injected: only SRTP may move the leg.
        if latched, rtp.srtp == nil, datagram.address != destination { return .dropped }
        guard let packet = try? rtp.receiveRTP(bytes, length: bytes.count, arrival: now), let format = packet.format else {
            return .dropped
        }
        if !latched || datagram.address != destination {
            let first = !latched
            destination = datagram.address
            latched = true
            if first { events?.send(.receiving(legID: id, source: datagram.address.description)) }
        }
        lastReceived = now
        silentReported = false
        statistics.rtpReceived += 1
        let view = packet.view
        var result = Received.audio
        switch format.kind {
        case .telephoneEvent:
            let keys = telephoneEvents.receive(payload: view.payload, timestamp: view.timestamp, now: now)
            result = .digit(keys.0, keys.1)
        case .audio:
            if let tap {
                tap.send(SIPMediaTapPacket(payload: Array(view.payload), sequenceNumber: view.sequenceNumber,
                                           timestamp: view.timestamp, payloadType: view.payloadType))
            }
        default:
            return .dropped
        }
        var index = 0
        while index < sinks.count {
            if sinks[index].sendForwarded(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                                          marker: view.marker, kind: format.kind, payload: view.payload, now: now) {
                statistics.forwarded += 1
            }
            index += 1
        }
        index = 0
        while index < handoffs.count {
            handoffs[index].push(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                                 marker: view.marker, kind: format.kind, payload: view.payload)
            index += 1
        }
        return result
    }

    /// A packet of our source (a leg here, or one on another transport), on our track.
    func sendForwarded(ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool, kind: RTPPayloadFormat.Kind,
                       payload: UnsafeRawBufferPointer, now: Double) -> Bool {
        guard parameters?.sends == true,
              case .send(let update) = track.forward(ssrc: ssrc, sequenceNumber: sequenceNumber, timestamp: timestamp,
                                                     marker: marker, kind: kind, now: now)
        else { return false }
        return queue(update, payload: payload, now: now)
    }

    /// A frame the server plays (covering `samples` at the codec's clock rate). Dropped while a
    /// source (here or across a hand-off) feeds the leg.
    func play(_ payload: UnsafeRawBufferPointer, samples: Int, now: Double) -> Bool {
        guard source == nil, incoming.isEmpty, parameters?.sends == true, samples >= 0, !digits.holdsAudio else { return false }
        return queue(track.play(samples: UInt32(clamping: samples), now: now), payload: payload, now: now)
    }

    /// Writes a 12-byte header and the payload into a send slot, protects it there and queues it.
    func queue(_ update: RTPHeaderUpdate, payload: UnsafeRawBufferPointer, now: Double) -> Bool {
        guard let destination else { return false }
        let trailer = rtp.trailerLength
        let queued = socket.sendBatch.withUnsafeSlot(to: destination) { slot -> Int in
            let length = RTPFixedHeader.size + payload.count
            guard length + trailer <= slot.count, let base = slot.baseAddress else { return -1 }
            update.write(to: base)
            if let bytes = payload.baseAddress, !payload.isEmpty {
                (base + RTPFixedHeader.size).copyMemory(from: bytes, byteCount: payload.count)
            }
            return (try? rtp.protectRTP(slot, length: length)) ?? -1
        }
        if queued { rtp.noteSent(stream: 0, timestamp: update.timestamp, payloadBytes: payload.count, now: now) }
        return queued
    }

    /// Our RTCP report (RFC 3550 §6.4), every 5 s while the leg is set up.
    func sendReportIfDue(now: Double) {
        guard parameters != nil, now >= nextReportAt, let to = rtcpDestination else { return }
        nextReportAt = now + 5
        guard let datagram = try? rtp.reportDatagram(now: now, ntp: NTPTime.now()) else { return }
        socket.sendBatch.append(datagram, to: to)
    }
}
