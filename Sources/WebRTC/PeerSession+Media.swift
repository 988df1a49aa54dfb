import Glibc
import ICE
import ParleyCore
import ParleyNet
import ParleySRTP
import RTCP
import RTP
import WireKit

extension PeerSession {
    /// An SRTP packet, in place in the socket's receive slot: unprotected there, counted for
    /// reports, rewritten with our SSRC (sequence number and timestamp shifted by constants, so gaps
    /// and pacing carry over), then copied once into a send-batch slot and protected there for the
    /// selected pair. Nothing allocates; the caller flushes the batch once per receive batch.
    /// Returns the number of datagrams queued (0 or 1).
    func receiveEchoRTP(_ datagram: UDPReceivedDatagram, from source: ICETransportAddress, now: Double,
                        out: inout [Datagram], batch: UDPSendBatch) -> Int {
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: datagram.address, now: now, out: &out)
        let received = datagram.bytes.count
        guard let srtp, state == .connected,
              received + SRTPContext.maxTrailerLength <= min(datagram.slot.count, batch.maxDatagramBytes) else {
            counters.mediaDropped += 1
            return 0
        }
        let buffer = datagram.slot
        let length: Int
        do { length = try srtp.unprotect(buffer, length: received) } catch {
            counters.srtpErrors += 1
            return 0
        }
        let packet = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])
        guard let view = try? RTPPacketView(UnsafeRawBufferPointer(packet)),
              let rewriter = try? RTPHeaderRewriter(packet) else {
            counters.mediaDropped += 1
            return 0
        }
        counters.rtpReceived += 1
        let payloadBytes = view.payloadRange.count
        reception.record(ssrc: view.ssrc, sequence: view.sequenceNumber, timestamp: view.timestamp,
                         payloadBytes: payloadBytes, arrival: now, clockRate: offer.codec.clockRate)
        let timestamp = view.timestamp &+ timestampShift
        rewriter.ssrc = localSSRC
        rewriter.sequenceNumber = view.sequenceNumber &+ sequenceShift
        rewriter.timestamp = timestamp
        let queued = batch.withUnsafeSlot(to: selectedSocketAddress ?? datagram.address) { slot in
            slot.baseAddress!.copyMemory(from: packet.baseAddress!, byteCount: length)
            do { return try srtp.protect(slot, length: length) } catch {
                counters.srtpErrors += 1
                return -1
            }
        }
        guard queued else { return 0 }
        noteSent(timestamp: timestamp, payloadBytes: payloadBytes, now: now)
        counters.rtpEchoed += 1
        return 1
    }

    /// Sender-report state (RFC 3550 §6.4.1) after one RTP packet went out on our stream.
    func noteSent(timestamp: UInt32, payloadBytes: Int, now: Double) {
        sentPackets &+= 1
        sentOctets &+= UInt32(truncatingIfNeeded: payloadBytes)
        lastSentTimestamp = timestamp
        lastSentAt = now
    }

    /// An SRTCP packet, unprotected in place in the receive slot and walked without decoding;
    /// sender reports are decoded for LSR/DLSR.
    func receiveRTCP(_ datagram: UDPReceivedDatagram, from source: ICETransportAddress, now: Double,
                     out: inout [Datagram]) {
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: datagram.address, now: now, out: &out)
        guard let srtp else {
            counters.mediaDropped += 1
            return
        }
        let length: Int
        do { length = try srtp.unprotectRTCP(datagram.slot, length: datagram.bytes.count) } catch {
            counters.srtpErrors += 1
            return
        }
        counters.rtcpReceived += 1
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(rebasing: datagram.slot[0..<length]))
        while let slice = iterator.next() {
            switch slice.header.packetType {
            case .senderReport:
                counters.senderReportsReceived += 1
                if let report = try? SenderReport(parsing: slice.bytes) {
                    reception.recordSenderReport(ntpTimestamp: report.ntpTimestamp, arrival: now)
                }
            case .receiverReport:
                counters.receiverReportsReceived += 1
            default:
                break
            }
        }
    }

    /// Our compound RTCP (RFC 3550 §6.1): an SR once we have echoed media (else an RR) carrying a
    /// report block on the received stream, plus SDES CNAME; protected with SRTCP.
    func sendReports(now: Double, out: inout [Datagram]) {
        guard let srtp, let destination = selectedSocketAddress else { return }
        let block = reception.makeReport(now: now)
        var packets: [RTCPPacket] = []
        if let lastSentTimestamp {
            let elapsed = max(0, now - lastSentAt)
            let rtpNow = lastSentTimestamp &+ UInt32(truncatingIfNeeded: Int64(elapsed * Double(offer.codec.clockRate)))
            packets.append(.senderReport(SenderReport(ssrc: localSSRC, ntpTimestamp: Self.ntpNow(), rtpTimestamp: rtpNow,
                                                      packetCount: sentPackets, octetCount: sentOctets,
                                                      reports: block.map { [$0] } ?? [])))
        } else {
            packets.append(.receiverReport(ReceiverReport(ssrc: localSSRC, reports: block.map { [$0] } ?? [])))
        }
        packets.append(.sourceDescription(SourceDescription(source: localSSRC, cname: "parley-\(id.prefix(8))")))
        var bytes = RTCPPacket.serialized(packets)
        let length = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: SRTPContext.maxRTCPTrailerLength))
        do {
            let protected = try srtp.protectRTCP(&bytes, length: length)
            bytes.removeLast(bytes.count - protected)
            counters.rtcpSent += 1
            out.append(Datagram(address: destination, bytes: bytes))
        } catch {
            counters.srtpErrors += 1
        }
    }

    /// The wall clock as a 64-bit NTP timestamp (RFC 3550 §4: seconds since 1900 in 32.32).
    static func ntpNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let seconds = UInt64(ts.tv_sec) &+ 2_208_988_800
        let fraction = (UInt64(ts.tv_nsec) << 32) / 1_000_000_000
        return seconds << 32 | fraction
    }
}
