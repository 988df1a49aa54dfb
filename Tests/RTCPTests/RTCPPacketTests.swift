import RTCP
import Testing
import WireKit

/// Compound packets (RFC 3550 §6.1), dispatch on PT/FMT, unknown types kept raw, and RTP/RTCP
/// demultiplexing (RFC 5761 §4).
@Suite struct RTCPPacketTests {
    /// A compound packet reconstructed from a browser capture: RR, SDES (CNAME), BYE, PLI, an
    /// RTPFB FMT 5 this package does not decode, and APP.
    static let browserCompound: [UInt8] =
        [0x81, 0xC9, 0x00, 0x07, 0x90, 0x2F, 0x9E, 0x2E, 0xBC, 0x5E, 0x9A, 0x40, 0x00, 0x00, 0x00, 0x00,
         0x00, 0x00, 0x46, 0xE1, 0x00, 0x00, 0x01, 0x11, 0x09, 0xF3, 0x64, 0x32, 0x00, 0x02, 0x4A, 0x79]
        + SourceDescriptionTests.cnamePacket
        + [0x81, 0xCB, 0x00, 0x01, 0x90, 0x2F, 0x9E, 0x2E]
        + [0x81, 0xCE, 0x00, 0x02, 0x90, 0x2F, 0x9E, 0x2E, 0x90, 0x2F, 0x9E, 0x2E]
        + [0x85, 0xCD, 0x00, 0x02, 0x90, 0x2F, 0x9E, 0x2E, 0x90, 0x2F, 0x9E, 0x2E]
        + [0x80, 0xCC, 0x00, 0x03, 0x4B, 0xAA, 0xE1, 0xAB, 0x4E, 0x41, 0x4D, 0x45, 0x41, 0x42, 0x43, 0x44]

    @Test func rfc3550CompoundFromBrowser() throws {
        let packets = try RTCPPacket.parseCompound(Self.browserCompound)
        #expect(packets.count == 6)
        guard case .receiverReport(let rr) = packets[0] else { Issue.record("not RR"); return }
        #expect(rr.ssrc == 0x902F_9E2E)
        #expect(rr.reports == [ReceptionReport(ssrc: 0xBC5E_9A40, extendedHighestSequenceNumber: 0x46E1, jitter: 273,
                                               lastSenderReport: 0x09F3_6432, delaySinceLastSenderReport: 150_137)])
        #expect(packets[1] == .sourceDescription(SourceDescription(source: 0x902F_9E2E, cname: SourceDescriptionTests.cnameText)))
        #expect(packets[2] == .goodbye(Goodbye(sources: [0x902F_9E2E])))
        #expect(packets[3] == .pictureLossIndication(PictureLossIndication(senderSSRC: 0x902F_9E2E, mediaSSRC: 0x902F_9E2E)))
        guard case .unknown(let raw) = packets[4] else { Issue.record("not raw"); return }
        #expect(raw.header == RTCPHeader(count: 5, packetType: .transportFeedback, length: 2))
        #expect(packets[5] == .applicationDefined(ApplicationDefined(subtype: 0, ssrc: 0x4BAA_E1AB, name: 0x4E41_4D45,
                                                                     data: Array("ABCD".utf8))))
        #expect(RTCPPacket.serialized(packets) == Self.browserCompound)
        #expect(RTCPPacket.serializedSize(of: packets) == Self.browserCompound.count)
    }

    /// The header-only walk finds the same packets without decoding them.
    @Test func compoundIteratorWalksHeaders() throws {
        let types = Self.browserCompound.withUnsafeBytes { raw in
            Array(RTCPCompoundIterator(raw)).map { ($0.header.packetType.rawValue, $0.header.count, $0.bytes.count) }
        }
        #expect(types.map(\.0) == [201, 202, 203, 206, 205, 204])
        #expect(types.map(\.2) == [32, 52, 8, 12, 12, 16])
        let broken = Self.browserCompound + [0x81, 0xC9, 0x00, 0x09]
        broken.withUnsafeBytes { raw in
            var it = RTCPCompoundIterator(raw)
            var count = 0
            while it.next() != nil { count += 1 }
            #expect(count == 6)
            #expect(it.error == .lengthPastEnd(declared: 40, available: 4))
        }
    }

    /// Types and formats this package does not decode survive byte for byte: XR (PT 207), TMMBR
    /// (RTPFB FMT 3), application-layer feedback that is not REMB, and a future PT.
    @Test(arguments: [
        [UInt8]([0x80, 0xCF, 0x00, 0x02, 0, 0, 0, 1, 0x04, 0x00, 0x00, 0x02]),
        [0x83, 0xCD, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0x12, 0x34, 0x56, 0x78],
        [0x8F, 0xCE, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0x41, 0x42, 0x43, 0x44],
        [0x80, 0xD0, 0x00, 0x00],
    ])
    func unknownPacketsKeptRaw(bytes: [UInt8]) throws {
        let packet = try RTCPPacket(parsing: bytes)
        guard case .unknown(let raw) = packet else { Issue.record("decoded \(packet)"); return }
        #expect(raw.bytes == bytes)
        #expect(packet.serialized == bytes)
        #expect(try RTCPPacket.parseCompound(bytes + bytes) == [packet, packet])
    }

    /// RFC 5761 §4: the second byte of RTCP is its PT (192–223 carry RTCP); RTP puts M and PT there.
    @Test func rfc5761Demultiplexing() {
        for pt: UInt8 in 192...223 { #expect(RTCPPacket.isRTCP(firstByte: 0x80, secondByte: pt)) }
        #expect(!RTCPPacket.isRTCP(firstByte: 0x80, secondByte: 0xE0))  // RTP PT 96 with marker
        #expect(!RTCPPacket.isRTCP(firstByte: 0x80, secondByte: 0x6F))  // RTP PT 111
        #expect(!RTCPPacket.isRTCP(firstByte: 0x80, secondByte: 191))
        #expect(!RTCPPacket.isRTCP(firstByte: 0x00, secondByte: 200))  // wrong version: STUN-like
        Self.browserCompound.withUnsafeBytes { #expect(RTCPPacket.isRTCP($0)) }
        [UInt8(0x81), 0xC9].withUnsafeBytes { #expect(!RTCPPacket.isRTCP($0)) }
    }

    /// §6.4.1: a P bit whose count fits is stripped from decoded types (and kept by raw ones).
    @Test func paddingOnLastPacketIsStripped() throws {
        let bytes: [UInt8] = [0xA0, 0xC9, 0x00, 0x02, 0, 0, 0, 7, 0, 0, 0, 4]
        #expect(try ReceiverReport(parsing: bytes) == ReceiverReport(ssrc: 7))
        let compound = Self.browserCompound + bytes
        #expect(try RTCPPacket.parseCompound(compound).last == .receiverReport(ReceiverReport(ssrc: 7)))
    }

    @Test func buildsCompoundWithWriter() throws {
        let packets: [RTCPPacket] = [
            .receiverReport(ReceiverReport(ssrc: 1, reports: [ReceptionReport(ssrc: 2, fractionLost: 3)])),
            .sourceDescription(SourceDescription(source: 1, cname: "parley")),
            .nack(TransportLayerNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [1, 2, 3, 40])),
            .remb(ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 1_500_000, ssrcs: [2, 3])),
            .fullIntraRequest(FullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 2, sequenceNumber: 1)])),
            .transportCC(try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0,
                                              baseSequenceNumber: 10, arrivals: [64_000, 65_000, nil, 70_000])),
            .senderReport(SenderReport(ssrc: 1, ntpTimestamp: 2, rtpTimestamp: 3, packetCount: 4, octetCount: 5)),
            .goodbye(Goodbye(sources: [1], reason: "bye")),
        ]
        var writer = ByteWriter(capacity: 512)
        RTCPPacket.serialize(packets, into: &writer)
        #expect(writer.count == RTCPPacket.serializedSize(of: packets))
        #expect(try RTCPPacket.parseCompound(writer.bytes) == packets)
    }
}
