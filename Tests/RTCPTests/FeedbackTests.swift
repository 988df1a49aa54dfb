import RTCP
import Testing

/// Generic NACK (RFC 4585 §6.2.1), PLI (§6.3.1), FIR (RFC 5104 §4.3.1) and REMB.
@Suite struct FeedbackTests {
    /// RFC 4585 §6.2.1: PID 10, BLP 0b101 → 10, 11, 13.
    @Test func rfc4585GenericNACK() throws {
        let bytes: [UInt8] = [0x81, 0xCD, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x0A, 0x00, 0x05]
        let nack = try roundTrip(TransportLayerNACK.self, bytes)
        #expect(nack.pairs == [TransportLayerNACK.Pair(packetID: 10, lostPackets: 0b101)])
        #expect(nack.lostSequenceNumbers == [10, 11, 13])
        #expect(TransportLayerNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [10, 11, 13]) == nack)
    }

    /// A BLP covers the 16 packets after its PID, across the 65535 → 0 wrap.
    @Test func nackPairsAcrossWrap() {
        let lost: [UInt16] = [65534, 65535, 0, 5, 14, 15, 20, 20, 40]
        let pairs = TransportLayerNACK.pairs(for: lost)
        var expanded: [UInt16] = []
        for pair in pairs { pair.forEachSequenceNumber { expanded.append($0) } }
        #expect(expanded == [65534, 65535, 0, 5, 14, 15, 20, 40])
        #expect(pairs.count == 3)
        #expect(pairs[0].packetID == 65534 && pairs[0].lostPackets == 1 << 0 | 1 << 1 | 1 << 6 | 1 << 15)
        #expect(pairs[1].packetID == 15 && pairs[1].lostPackets == 1 << 4)
        #expect(pairs[2] == .init(packetID: 40))
    }

    @Test func nackFullMaskExpandsTo17() {
        #expect(TransportLayerNACK.Pair(packetID: 65530, lostPackets: 0xFFFF).sequenceNumbers.count == 17)
        #expect(TransportLayerNACK.Pair(packetID: 65530, lostPackets: 0xFFFF).sequenceNumbers.last == 65530 &+ 16)
    }

    /// RFC 4585 §6.3.1: PLI has no FCI (from a browser capture: sender = media source).
    @Test func rfc4585PictureLossIndication() throws {
        let bytes: [UInt8] = [0x81, 0xCE, 0x00, 0x02, 0x90, 0x2F, 0x9E, 0x2E, 0x90, 0x2F, 0x9E, 0x2E]
        let pli = try roundTrip(PictureLossIndication.self, bytes)
        #expect(pli == PictureLossIndication(senderSSRC: 0x902F_9E2E, mediaSSRC: 0x902F_9E2E))
    }

    /// RFC 5104 §4.3.1.1: FCI entries of SSRC, seq nr, 24 reserved bits.
    @Test func rfc5104FullIntraRequest() throws {
        let bytes: [UInt8] = [0x84, 0xCE, 0x00, 0x06, 0, 0, 0, 1, 0, 0, 0, 0,
                              0x12, 0x34, 0x56, 0x78, 0x2A, 0, 0, 0,
                              0x9A, 0xBC, 0xDE, 0xF0, 0xFF, 0, 0, 0]
        let fir = try roundTrip(FullIntraRequest.self, bytes)
        #expect(fir.entries == [.init(ssrc: 0x1234_5678, sequenceNumber: 42), .init(ssrc: 0x9ABC_DEF0, sequenceNumber: 255)])
    }

    /// REMB captured from Chrome watching a 6 Mb/s stream: exp 6, mantissa 139487.
    @Test func rembFromChrome() throws {
        let bytes: [UInt8] = [143, 206, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 82, 69, 77, 66, 1, 26, 32, 223, 72, 116, 237, 22]
        let remb = try roundTrip(ReceiverEstimatedMaximumBitrate.self, bytes)
        #expect(remb.exponent == 6 && remb.mantissa == 139_487)
        #expect(remb.bitrate == 8_927_168)
        #expect(remb.ssrcs == [1_215_622_422])
        #expect(ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 8_927_168, ssrcs: [1_215_622_422]).serialized == bytes)
    }

    @Test func rembBitrateEncoding() {
        let down = ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 8_927_167, ssrcs: [])
        #expect(down.bitrate == 8_927_104)  // rounds down to the 2^6 grid
        let small = ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: 0x3_FFFF, ssrcs: [])
        #expect(small.exponent == 0 && small.bitrate == 0x3_FFFF)
        let huge = ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrate: .max, ssrcs: [])
        #expect(huge.mantissa == 0x3_FFFF && huge.exponent == 46)
        var saturated = huge
        saturated.exponent = 63
        #expect(saturated.bitrate == .max)
    }
}
