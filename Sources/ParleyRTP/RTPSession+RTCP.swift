import ParleySRTP
import RTCP

/// What one compound RTCP packet from the peer held.
public struct RTCPReceiveSummary: Sendable, Hashable {
    public var senderReports = 0
    public var receiverReports = 0
    /// Report blocks about one of our send streams.
    public var reportBlocksOnOurStreams = 0
    /// The media SSRCs a PLI (RFC 4585 §6.3.1) or FIR (RFC 5104 §4.3.1) asked a key frame of.
    public var keyframeRequests: [UInt32] = []
    /// Generic NACKs (RFC 4585 §6.2.1): the media SSRC and the sequence numbers asked for again.
    public var nacks: [TransportLayerNACK] = []
    /// The peer's receive-side bandwidth estimate, bits/s (REMB, draft-alvestrand-rmcat-remb-03),
    /// the last one in the packet.
    public var receiverEstimate: UInt64?
    /// The walk stopped at a malformed packet (the ones before it were used).
    public var malformed = false

    public init() {}
}

extension RTPSession {
    /// Unprotects the compound RTCP packet in `buffer[0..<length]` in place (SRTCP, RFC 3711 §3.4)
    /// and reads it (RFC 3550 §6.4): a sender report is kept for our LSR/DLSR on its stream, and
    /// report blocks on our send streams for loss, jitter and round-trip time. `arrivalNTP` is the
    /// wall clock when it arrived.
    public mutating func receiveRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, arrival: Double,
                                     arrivalNTP: UInt64) throws(RTPSessionError) -> RTCPReceiveSummary {
        guard length <= buffer.count else { throw .tooLarge(needed: length, available: buffer.count) }
        var plain = length
        if let srtp {
            do { plain = try srtp.unprotectRTCP(buffer, length: length) } catch { throw .srtp(error) }
        } else if configuration.requiresSRTP {
            throw .notKeyed
        }
        var summary = RTCPReceiveSummary()
        let compactArrival = NTPTime.compact(arrivalNTP)
        var iterator = RTCPCompoundIterator(UnsafeRawBufferPointer(rebasing: buffer[0..<plain]))
        while let slice = iterator.next() {
            switch slice.header.packetType {
            case .senderReport:
                summary.senderReports += 1
                guard let report = try? SenderReport(parsing: slice.bytes) else { summary.malformed = true; continue }
                if let index = receiveStreams.firstIndex(where: { $0.ssrc == report.ssrc }) {
                    receiveStreams[index].recordSenderReport(ntpTimestamp: report.ntpTimestamp, arrival: arrival)
                }
                summary.reportBlocksOnOurStreams += noteReportBlocks(report.reports, arrival: compactArrival)
            case .receiverReport:
                summary.receiverReports += 1
                guard let report = try? ReceiverReport(parsing: slice.bytes) else { summary.malformed = true; continue }
                summary.reportBlocksOnOurStreams += noteReportBlocks(report.reports, arrival: compactArrival)
            case .transportFeedback where slice.header.count == TransportLayerNACK.format:
                guard let nack = try? TransportLayerNACK(parsing: slice.bytes) else { summary.malformed = true; continue }
                summary.nacks.append(nack)
            case .payloadFeedback where slice.header.count == PictureLossIndication.format:
                guard let pli = try? PictureLossIndication(parsing: slice.bytes) else { summary.malformed = true; continue }
                summary.keyframeRequests.append(pli.mediaSSRC)
            case .payloadFeedback where slice.header.count == FullIntraRequest.format:
                guard let fir = try? FullIntraRequest(parsing: slice.bytes) else { summary.malformed = true; continue }
                summary.keyframeRequests += fir.entries.map(\.ssrc)
            case .payloadFeedback where slice.header.count == ReceiverEstimatedMaximumBitrate.format:
                // Application layer feedback (RFC 4585 §6.4): REMB when it says so, else ignored.
                guard let remb = try? ReceiverEstimatedMaximumBitrate(parsing: slice.bytes) else { continue }
                summary.receiverEstimate = remb.bitrate
            default:
                break
            }
        }
        if iterator.error != nil { summary.malformed = true }
        return summary
    }

    private mutating func noteReportBlocks(_ blocks: [ReceptionReport], arrival: UInt32) -> Int {
        var matched = 0
        for block in blocks {
            guard let index = sendStreams.firstIndex(where: { $0.ssrc == block.ssrc }) else { continue }
            sendStreams[index].noteRemoteReport(block, arrival: arrival)
            matched += 1
        }
        return matched
    }

    /// This interval's compound RTCP packet (RFC 3550 §6.1; several SSRCs, RFC 8108 §5.3): first
    /// an SR from the first send stream once it has sent (an RR before that, or from
    /// `receiverSSRC` when we send nothing), carrying a report block on every receive stream heard
    /// from lately (at most 31); an SR for each other stream that has sent; then one SDES with the
    /// CNAME of every SSRC that reported. Starts the next interval of each receive stream (A.3).
    public mutating func makeReports(now: Double, ntp: UInt64) -> [RTCPPacket] {
        var blocks: [ReceptionReport] = []
        for index in receiveStreams.indices
        where now - receiveStreams[index].lastArrival <= configuration.receiveStreamTimeout && blocks.count < 31 {
            if let block = receiveStreams[index].makeReport(now: now) { blocks.append(block) }
        }
        var packets: [RTCPPacket] = []
        var reporters: [UInt32] = []
        if let first = sendStreams.first {
            if let report = first.senderReport(now: now, ntp: ntp, reports: blocks) {
                packets.append(.senderReport(report))
            } else {
                packets.append(.receiverReport(ReceiverReport(ssrc: first.ssrc, reports: blocks)))
            }
            reporters.append(first.ssrc)
            for stream in sendStreams.dropFirst() {
                guard let report = stream.senderReport(now: now, ntp: ntp, reports: []) else { continue }
                packets.append(.senderReport(report))
                reporters.append(stream.ssrc)
            }
        } else {
            packets.append(.receiverReport(ReceiverReport(ssrc: receiverSSRC, reports: blocks)))
            reporters.append(receiverSSRC)
        }
        let chunks = reporters.map { SourceDescription.Chunk(source: $0, items: [.init(type: .cname, configuration.cname)]) }
        packets.append(.sourceDescription(SourceDescription(chunks: chunks)))
        return packets
    }

    /// `makeReports`, serialized and protected (SRTCP, RFC 3711 §3.4): the datagram to send.
    public mutating func reportDatagram(now: Double, ntp: UInt64) throws(RTPSessionError) -> [UInt8] {
        try datagram(makeReports(now: now, ntp: ntp))
    }

    /// A key frame request from send stream `stream` (or `receiverSSRC` when nil: an endpoint that
    /// only receives) to the sender of `mediaSSRC`: a PLI (RFC 4585 §6.3.1) in a minimal compound
    /// packet (§3.1: RR, PLI, SDES), protected. A forwarder sends it to a source when a receiver
    /// of the forwarded stream asked for one.
    public func keyframeRequestDatagram(from stream: Int?, to mediaSSRC: UInt32) throws(RTPSessionError) -> [UInt8] {
        if let stream, stream < 0 || stream >= sendStreams.count { throw .noSuchStream(stream) }
        let ssrc = stream.map { sendStreams[$0].ssrc } ?? receiverSSRC
        return try datagram([.receiverReport(ReceiverReport(ssrc: ssrc)),
                             .pictureLossIndication(PictureLossIndication(senderSSRC: ssrc, mediaSSRC: mediaSSRC)),
                             .sourceDescription(SourceDescription(chunks: [
                                 .init(source: ssrc, items: [.init(type: .cname, configuration.cname)]),
                             ]))])
    }

    /// A Generic NACK (RFC 4585 §6.2.1) from send stream `stream` (or `receiverSSRC` when we send
    /// nothing) to the sender of `mediaSSRC` for `lost`, in a minimal compound packet (RR, NACK,
    /// SDES), protected.
    public func nackDatagram(from stream: Int?, to mediaSSRC: UInt32, lost: [UInt16]) throws(RTPSessionError) -> [UInt8] {
        let ssrc = stream.flatMap { $0 >= 0 && $0 < sendStreams.count ? sendStreams[$0].ssrc : nil } ?? receiverSSRC
        return try datagram([.receiverReport(ReceiverReport(ssrc: ssrc)),
                             .nack(TransportLayerNACK(senderSSRC: ssrc, mediaSSRC: mediaSSRC, lostSequenceNumbers: lost)),
                             .sourceDescription(SourceDescription(chunks: [
                                 .init(source: ssrc, items: [.init(type: .cname, configuration.cname)]),
                             ]))])
    }

    /// Transport-wide CC feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1) from
    /// our receiver SSRC, after an empty receiver report (RFC 3550 §6.1 compound), protected.
    public func transportFeedbackDatagram(_ feedback: TransportLayerCC) throws(RTPSessionError) -> [UInt8] {
        var feedback = feedback
        feedback.senderSSRC = receiverSSRC
        return try datagram([.receiverReport(ReceiverReport(ssrc: receiverSSRC)), .transportCC(feedback)])
    }

    /// A receiver estimated maximum bitrate (draft-alvestrand-rmcat-remb-03) of `bitrate` bits/s for
    /// `ssrcs`, from our receiver SSRC, after an empty receiver report, protected: the most the
    /// sender of those streams should send.
    public func rembDatagram(bitrate: UInt64, ssrcs: [UInt32]) throws(RTPSessionError) -> [UInt8] {
        try datagram([.receiverReport(ReceiverReport(ssrc: receiverSSRC)),
                      .remb(ReceiverEstimatedMaximumBitrate(senderSSRC: receiverSSRC, bitrate: bitrate, ssrcs: ssrcs))])
    }

    /// Compound RTCP serialized and, with SRTP, protected (SRTCP, RFC 3711 §3.4).
    func datagram(_ packets: [RTCPPacket]) throws(RTPSessionError) -> [UInt8] {
        var bytes = RTCPPacket.serialized(packets)
        guard let srtp else {
            if configuration.requiresSRTP { throw .notKeyed }
            return bytes
        }
        let length = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: SRTPContext.maxRTCPTrailerLength))
        do {
            let protected = try srtp.protectRTCP(&bytes, length: length)
            bytes.removeLast(bytes.count - protected)
        } catch {
            throw .srtp(error)
        }
        return bytes
    }
}
