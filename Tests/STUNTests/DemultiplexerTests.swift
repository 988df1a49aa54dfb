import STUN
import Testing

/// RFC 7983 §7 first-byte ranges and RFC 5761 §4 RTP/RTCP split.
@Suite struct DemultiplexerTests {
    static func expected(_ b: UInt8) -> PacketKind {
        switch b {
        case 0...3: .stun
        case 4...15: .unknown
        case 16...19: .zrtp
        case 20...63: .dtls
        case 64...79: .turnChannel
        case 80...127: .unknown
        case 128...191: .rtpOrRtcp
        default: .unknown
        }
    }

    @Test func everyFirstByte() {
        for b in UInt8.min...UInt8.max { #expect(PacketKind.classify(firstByte: b) == Self.expected(b), "byte \(b)") }
    }

    @Test(arguments: [(UInt8(0), PacketKind.stun), (3, .stun), (4, .unknown), (15, .unknown), (16, .zrtp), (19, .zrtp),
                      (20, .dtls), (22, .dtls), (63, .dtls), (64, .turnChannel), (79, .turnChannel), (80, .unknown),
                      (127, .unknown), (128, .rtpOrRtcp), (191, .rtpOrRtcp), (192, .unknown), (255, .unknown)])
    func boundaries(byte: UInt8, kind: PacketKind) {
        #expect(PacketKind.classify(firstByte: byte) == kind)
    }

    @Test func packets() throws {
        #expect([UInt8]().withUnsafeBytes { PacketKind.classify($0) } == .unknown)
        let stun = try STUNMessage(type: .bindingRequest, transactionID: rfc5769TransactionID).serialized()
        #expect(stun.withUnsafeBytes { PacketKind.classify($0) } == .stun)
        #expect(stun.withUnsafeBytes { STUNMessage.looksLikeSTUN($0) })
        let channel = try ChannelData(channelNumber: 0x4FFF, data: [1]).serialized()
        #expect(channel.withUnsafeBytes { PacketKind.classify($0) } == .turnChannel)
        #expect(!channel.withUnsafeBytes { STUNMessage.looksLikeSTUN($0) })
    }

    @Test func rtcpByPacketType() {
        for pt in UInt8.min...UInt8.max { #expect(PacketKind.isRTCP(secondByte: pt) == (192...223).contains(pt)) }
        let senderReport: [UInt8] = [0x80, 200, 0x00, 0x06]
        let rtpMarkerPT0: [UInt8] = [0x80, 0x80, 0x00, 0x01]  // marker set, PT 0 (PCMU)
        let rtpPT111: [UInt8] = [0x80, 111, 0x00, 0x01]
        #expect(senderReport.withUnsafeBytes { PacketKind.isRTCP($0) })
        #expect(!rtpMarkerPT0.withUnsafeBytes { PacketKind.isRTCP($0) })
        #expect(!rtpPT111.withUnsafeBytes { PacketKind.isRTCP($0) })
        #expect(![UInt8(0x80)].withUnsafeBytes { PacketKind.isRTCP($0) })
        #expect(![UInt8(0x16), 200].withUnsafeBytes { PacketKind.isRTCP($0) })  // DTLS, not RTCP
    }
}
