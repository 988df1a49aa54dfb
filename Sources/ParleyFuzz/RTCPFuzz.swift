import RTCP

/// Feeds bytes to the RTCP header walk and the compound parser. Whatever parses must
/// re-serialize to bytes that parse to the same packets.
enum RTCPFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        _ = RTCPPacket.isRTCP(data)
        var walked = 0
        var iterator = RTCPCompoundIterator(data)
        while iterator.next() != nil { walked += 1 }

        guard let packets = try? RTCPPacket.parseCompound(data) else { return }
        precondition(packets.count == walked && iterator.error == nil, "parser and header walk disagree")

        let bytes = RTCPPacket.serialized(packets)
        precondition(bytes.count == RTCPPacket.serializedSize(of: packets), "RTCP serializedSize disagrees")
        precondition(bytes.count % 4 == 0, "RTCP packets must be 32-bit aligned")
        precondition((try? RTCPPacket.parseCompound(bytes)) == packets, "RTCP round trip changed the packets")

        // The convenience expansions must not trap on anything the parser accepts.
        for packet in packets {
            switch packet {
            case .nack(let nack): _ = nack.lostSequenceNumbers
            case .transportCC(let feedback): _ = feedback.packetResults
            case .remb(let remb): _ = remb.bitrate
            case .senderReport(let sr): for block in sr.reports { _ = block.roundTripTime(arrivedAt: sr.compactNTP) }
            case .receiverReport(let rr): for block in rr.reports { _ = block.roundTripTime(arrivedAt: 0x8000_0000) }
            case .sourceDescription(let sdes): for chunk in sdes.chunks { _ = sdes.cname(for: chunk.source) }
            case .goodbye(let bye): _ = bye.reasonText
            case .unknown(let raw): _ = raw.header
            case .applicationDefined, .pictureLossIndication, .fullIntraRequest: break
            }
        }
    }
}
