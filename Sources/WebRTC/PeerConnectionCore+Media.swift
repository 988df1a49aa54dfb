import ICE
import ParleyCore
import ParleySRTP
import RTCP
import RTP

extension PeerConnectionCore {
    /// One RTP packet (RFC 3550 §5.1, no CSRCs or extensions), SRTP-protected, on the selected pair;
    /// the connection numbers it (sequence, timestamp advancing by `increment`).
    func sendAudio(_ payload: [UInt8], increment: UInt32, payloadType: UInt8?, marker: Bool) {
        guard let pt = payloadType ?? remote?.payloadType else {
            stats.sendDropped += 1
            return
        }
        let timestamp = nextTimestamp
        nextTimestamp &+= increment
        sequenceNumber &+= 1
        sendRTP(payload, payloadType: pt, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker)
    }

    /// One RTP packet numbered by the caller (an audio engine that keeps its own RTP clock), sent
    /// from this connection's SSRC.
    func sendRTP(_ payload: [UInt8], payloadType pt: UInt8, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool) {
        guard let srtp, state == .connected || state == .disconnected,
              12 + payload.count + SRTPContext.maxTrailerLength <= scratch.count else {
            stats.sendDropped += 1
            return
        }
        var packet = [UInt8]()
        packet.reserveCapacity(12 + payload.count + SRTPContext.maxTrailerLength)
        packet.append(0x80)
        packet.append((marker ? 0x80 : 0) | (pt & 0x7F))
        packet.append(UInt8(truncatingIfNeeded: sequenceNumber >> 8))
        packet.append(UInt8(truncatingIfNeeded: sequenceNumber))
        for shift in stride(from: 24, through: 0, by: -8) { packet.append(UInt8(truncatingIfNeeded: timestamp >> UInt32(shift))) }
        for shift in stride(from: 24, through: 0, by: -8) { packet.append(UInt8(truncatingIfNeeded: localSSRC >> UInt32(shift))) }
        packet += payload
        let length = packet.count
        packet.append(contentsOf: repeatElement(0, count: SRTPContext.maxTrailerLength))
        do {
            let protected = try srtp.protect(&packet, length: length)
            packet.removeLast(packet.count - protected)
        } catch {
            stats.srtpErrors += 1
            return
        }
        guard sendOnSelectedPair(packet) else {
            stats.sendDropped += 1
            return
        }
        stats.packetsSent += 1
        stats.payloadBytesSent += UInt64(payload.count)
        lastSentTimestamp = timestamp
        lastSentAt = now
        flush()
    }

    func receiveRTP(_ bytes: UnsafeRawBufferPointer) {
        guard let srtp, bytes.count + SRTPContext.maxTrailerLength <= scratch.count else { return }
        let arrival = now
        let received: PeerConnection.ReceivedAudio? = scratch.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress, let src = bytes.baseAddress else { return nil }
            base.copyMemory(from: src, byteCount: bytes.count)
            let length: Int
            do { length = try srtp.unprotect(buffer, length: bytes.count) } catch {
                stats.srtpErrors += 1
                return nil
            }
            guard let view = try? RTPPacketView(UnsafeRawBufferPointer(rebasing: buffer[0..<length])) else { return nil }
            let clockRate = remote?.payloadType == view.payloadType ? remote?.codec.clockRate ?? 48_000 : 48_000
            reception.record(ssrc: view.ssrc, sequence: view.sequenceNumber, timestamp: view.timestamp,
                             payloadBytes: view.payloadRange.count, arrival: arrival, clockRate: clockRate)
            return PeerConnection.ReceivedAudio(payload: Array(view.payload), payloadType: view.payloadType,
                                                sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                                                ssrc: view.ssrc, marker: view.marker)
        }
        guard let received else { return }
        stats.packetsReceived += 1
        stats.payloadBytesReceived += UInt64(received.payload.count)
        audioSink.yield(received)
    }

    /// SRTCP: sender reports (for our LSR/DLSR) and report blocks on our stream (RTT, loss, jitter).
    func receiveRTCP(_ bytes: UnsafeRawBufferPointer) {
        guard let srtp else { return }
        var buffer = Array(bytes)
        buffer.append(contentsOf: repeatElement(0, count: 16))
        let length: Int
        do { length = try srtp.unprotectRTCP(&buffer, length: bytes.count) } catch {
            stats.srtpErrors += 1
            return
        }
        stats.rtcpReceived += 1
        let arrival = now
        let arrivalNTP = NTPTime.compact(PeerSession.ntpNow())
        guard let packets = try? RTCPPacket.parseCompound(Array(buffer[0..<length])) else { return }
        for packet in packets {
            var blocks: [ReceptionReport] = []
            switch packet {
            case .senderReport(let report):
                reception.recordSenderReport(ntpTimestamp: report.ntpTimestamp, arrival: arrival)
                blocks = report.reports
            case .receiverReport(let report):
                blocks = report.reports
            default:
                continue
            }
            for block in blocks where block.ssrc == localSSRC {
                stats.remoteFractionLost = block.fractionLost
                stats.remoteCumulativeLost = block.totalLost
                stats.remoteJitter = block.jitter
                if let rtt = RoundTripTime.compute(arrival: arrivalNTP, lastSenderReport: block.lastSenderReport,
                                                   delaySinceLastSenderReport: block.delaySinceLastSenderReport) {
                    stats.roundTripTime = .microseconds(RoundTripTime.microseconds(fromCompact: rtt))
                    stats.roundTripTimeSamples += 1
                }
            }
        }
    }

    /// Compound RTCP (RFC 3550 §6.1): an SR once we have sent media (else an RR) with a report
    /// block on the received stream, plus SDES CNAME; protected with SRTCP.
    func sendReports() {
        guard let srtp else { return }
        let t = now
        let block = reception.makeReport(now: t)
        var packets: [RTCPPacket] = []
        if let lastSentTimestamp {
            let clockRate = remote?.codec.clockRate ?? 48_000
            let rtpNow = lastSentTimestamp &+ UInt32(truncatingIfNeeded: Int64(max(0, t - lastSentAt) * Double(clockRate)))
            packets.append(.senderReport(SenderReport(ssrc: localSSRC, ntpTimestamp: PeerSession.ntpNow(), rtpTimestamp: rtpNow,
                                                      packetCount: UInt32(truncatingIfNeeded: stats.packetsSent),
                                                      octetCount: UInt32(truncatingIfNeeded: stats.payloadBytesSent),
                                                      reports: block.map { [$0] } ?? [])))
        } else {
            packets.append(.receiverReport(ReceiverReport(ssrc: localSSRC, reports: block.map { [$0] } ?? [])))
        }
        packets.append(.sourceDescription(SourceDescription(source: localSSRC, cname: cname)))
        var bytes = RTCPPacket.serialized(packets)
        let length = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: SRTPContext.maxRTCPTrailerLength))
        do {
            let protected = try srtp.protectRTCP(&bytes, length: length)
            bytes.removeLast(bytes.count - protected)
        } catch {
            stats.srtpErrors += 1
            return
        }
        if sendOnSelectedPair(bytes) { stats.rtcpSent += 1 }
    }

    func statistics() -> PeerConnection.Statistics {
        var s = stats
        s.state = state
        s.iceState = ice.state
        s.failure = failure
        s.timings = timings
        if let pair = ice.selectedPair {
            s.localCandidate = pair.local
            s.remoteCandidate = pair.remote
        }
        s.remoteSSRC = reception.packetsReceived > 0 ? reception.ssrc : nil
        let clockRate = Double(remote?.codec.clockRate ?? 48_000)
        s.jitter = Double(reception.jitter) / clockRate
        s.cumulativeLost = reception.cumulativeLost
        return s
    }
}
