import Glibc
import ICE
import ParleyCore
import ParleyNet
import ParleySRTP
import RTCP
import RTP
import WireKit

extension PeerSession {
    /// An SRTP packet: unprotected in the reusable buffer, counted for reports, then echoed with
    /// our SSRC (sequence number and timestamp shifted by constants, so gaps and pacing carry over),
    /// protected again and sent to the selected pair. The only allocation is the outgoing
    /// datagram's array, which `UDPSocket.send` requires.
    func receiveRTP(_ bytes: UnsafeRawBufferPointer, from source: ICETransportAddress, socket: SocketAddress,
                    now: Double, out: inout [Datagram]) {
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: socket, now: now, out: &out)
        guard let srtp, state == .connected, bytes.count + SRTPContext.maxTrailerLength <= scratch.count else {
            counters.mediaDropped += 1
            return
        }
        let destination = selectedSocketAddress ?? socket
        let clockRate = offer.codec.clockRate
        let outcome: Int? = scratch.withUnsafeMutableBytes { buffer -> Int? in
            guard let base = buffer.baseAddress, let src = bytes.baseAddress else { return nil }
            base.copyMemory(from: src, byteCount: bytes.count)
            let length: Int
            do { length = try srtp.unprotect(buffer, length: bytes.count) } catch {
                counters.srtpErrors += 1
                return nil
            }
            let packet = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])
            guard let view = try? RTPPacketView(UnsafeRawBufferPointer(packet)) else {
                counters.mediaDropped += 1
                return nil
            }
            counters.rtpReceived += 1
            reception.record(ssrc: view.ssrc, sequence: view.sequenceNumber, timestamp: view.timestamp,
                             payloadBytes: view.payloadRange.count, arrival: now, clockRate: clockRate)
            let payloadBytes = view.payloadRange.count
            guard let rewriter = try? RTPHeaderRewriter(packet) else { return nil }
            rewriter.ssrc = localSSRC
            rewriter.sequenceNumber = view.sequenceNumber &+ sequenceShift
            let timestamp = view.timestamp &+ timestampShift
            rewriter.timestamp = timestamp
            do {
                let protected = try srtp.protect(buffer, length: length)
                sentPackets &+= 1
                sentOctets &+= UInt32(truncatingIfNeeded: payloadBytes)
                lastSentTimestamp = timestamp
                lastSentAt = now
                return protected
            } catch {
                counters.srtpErrors += 1
                return nil
            }
        }
        guard let outcome else { return }
        counters.rtpEchoed += 1
        out.append(Datagram(address: destination, bytes: Array(scratch[0..<outcome])))
    }

    /// An SRTCP packet: unprotected and walked without decoding; sender reports are decoded for
    /// LSR/DLSR.
    func receiveRTCP(_ bytes: UnsafeRawBufferPointer, from source: ICETransportAddress, socket: SocketAddress,
                     now: Double, out: inout [Datagram]) {
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: socket, now: now, out: &out)
        guard let srtp, bytes.count + SRTPContext.maxRTCPTrailerLength <= scratch.count else {
            counters.mediaDropped += 1
            return
        }
        scratch.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress, let src = bytes.baseAddress else { return }
            base.copyMemory(from: src, byteCount: bytes.count)
            let length: Int
            do { length = try srtp.unprotectRTCP(buffer, length: bytes.count) } catch {
                counters.srtpErrors += 1
                return
            }
            counters.rtcpReceived += 1
            var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
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
