import RTCP
import Testing

/// Sender and receiver reports and their report blocks (RFC 3550 §6.4).
@Suite struct ReportTests {
    static let block: [UInt8] = [
        0xBC, 0x5E, 0x9A, 0x40,  // SSRC_1
        0x20, 0xFF, 0xFF, 0xFE,  // fraction lost 32/256, cumulative lost -2
        0x00, 0x01, 0x46, 0xE1,  // extended highest seq: 1 cycle, 0x46E1
        0x00, 0x00, 0x01, 0x11,  // jitter 273
        0x09, 0xF3, 0x64, 0x32,  // LSR
        0x00, 0x02, 0x4A, 0x79,  // DLSR 150137
    ]

    /// RFC 3550 §6.4.1 layout, written by hand from the figure.
    @Test func rfc3550SenderReport() throws {
        let bytes: [UInt8] = [
            0x81, 0xC8, 0x00, 0x0C,  // V=2 RC=1 PT=200 length 12
            0x90, 0x2F, 0x9E, 0x2E,  // SSRC of sender
            0xDA, 0x8B, 0xD1, 0xFC, 0xDD, 0xDD, 0xDD, 0xDD,  // NTP timestamp
            0x00, 0x0E, 0x2E, 0x6A,  // RTP timestamp
            0x00, 0x00, 0x00, 0x10,  // packet count
            0x00, 0x00, 0x0B, 0x40,  // octet count
        ] + Self.block
        let sr = try roundTrip(SenderReport.self, bytes)
        #expect(sr.ssrc == 0x902F_9E2E)
        #expect(sr.ntpTimestamp == 0xDA8B_D1FC_DDDD_DDDD)
        #expect(sr.compactNTP == 0xD1FC_DDDD)
        #expect(sr.rtpTimestamp == 0x000E_2E6A)
        #expect(sr.packetCount == 16 && sr.octetCount == 2880)
        #expect(sr.reports == [ReceptionReport(ssrc: 0xBC5E_9A40, fractionLost: 32, totalLost: -2,
                                               extendedHighestSequenceNumber: 0x0001_46E1, jitter: 273,
                                               lastSenderReport: 0x09F3_6432, delaySinceLastSenderReport: 150_137)])
        #expect(sr.profileExtensions.isEmpty)
    }

    /// RFC 3550 §6.4.2: an RR with no blocks is the minimal compound-packet opener.
    @Test func rfc3550EmptyReceiverReport() throws {
        let rr = try roundTrip(ReceiverReport.self, [0x80, 0xC9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x2A])
        #expect(rr == ReceiverReport(ssrc: 42))
    }

    @Test func receiverReportWithProfileExtensions() throws {
        let bytes: [UInt8] = [0x81, 0xC9, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01] + Self.block + [1, 2, 3, 4]
        let rr = try roundTrip(ReceiverReport.self, bytes)
        #expect(rr.profileExtensions == [1, 2, 3, 4])
        #expect(rr.reports.count == 1)
    }

    /// §6.4.1: cumulative lost is 24-bit signed; out-of-range values clamp instead of wrapping.
    @Test(arguments: [(Int32(0), Int32(0)), (-1, -1), (8_388_607, 8_388_607), (-8_388_608, -8_388_608),
                      (9_000_000, 8_388_607), (.min, -8_388_608)])
    func cumulativeLostIsSigned24Bit(written: Int32, read: Int32) throws {
        let rr = ReceiverReport(ssrc: 1, reports: [ReceptionReport(ssrc: 2, totalLost: written)])
        #expect(try ReceiverReport(parsing: rr.serialized).reports[0].totalLost == read)
    }

    /// More than 31 blocks do not fit the 5-bit RC; only 31 are written.
    @Test func reportCountCappedAt31() throws {
        let rr = ReceiverReport(ssrc: 1, reports: (0..<40).map { ReceptionReport(ssrc: UInt32($0)) })
        let parsed = try ReceiverReport(parsing: rr.serialized)
        #expect(parsed.reports.count == 31)
        #expect(rr.serializedSize == 8 + 31 * 24)
    }

    /// Unaligned profile extensions are followed by RTCP padding (P bit) so they round-trip.
    @Test func unalignedExtensionsUseRTCPPadding() throws {
        let sr = SenderReport(ssrc: 1, ntpTimestamp: 2, rtpTimestamp: 3, packetCount: 4, octetCount: 5,
                              profileExtensions: [0xAB])
        let bytes = sr.serialized
        #expect(bytes[0] == 0xA0)  // P bit
        #expect(bytes.suffix(4) == [0xAB, 0, 0, 3])
        #expect(try SenderReport(parsing: bytes) == sr)
    }

    /// RFC 3550 §6.4.1 example: A = 0xb710:8000, LSR = 0xb705:2000, DLSR = 0x0005:4000 gives
    /// a round-trip delay of 0x0006:2000 (6.125 s).
    @Test func rfc3550RoundTripTimeExample() {
        let rtt = RoundTripTime.compute(arrival: 0xB710_8000, lastSenderReport: 0xB705_2000,
                                        delaySinceLastSenderReport: 0x0005_4000)
        #expect(rtt == 0x0006_2000)
        #expect(RoundTripTime.microseconds(fromCompact: 0x0006_2000) == 6_125_000)
        let block = ReceptionReport(ssrc: 1, lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)
        #expect(block.roundTripTime(arrivedAt: 0xB710_8000) == 0x0006_2000)
    }

    @Test func roundTripTimeEdgeCases() {
        // No SR received yet.
        #expect(RoundTripTime.compute(arrival: 100, lastSenderReport: 0, delaySinceLastSenderReport: 0) == nil)
        // DLSR longer than the interval: negative, refused.
        #expect(RoundTripTime.compute(arrival: 100, lastSenderReport: 90, delaySinceLastSenderReport: 20) == nil)
        // Arrival before LSR.
        #expect(RoundTripTime.compute(arrival: 10, lastSenderReport: 90, delaySinceLastSenderReport: 0) == nil)
        // Across the 32-bit wrap of the compact NTP time.
        #expect(RoundTripTime.compute(arrival: 0x0000_0010, lastSenderReport: 0xFFFF_FFF0,
                                      delaySinceLastSenderReport: 0x10) == 0x10)
        #expect(NTPTime.compact(0x1122_3344_5566_7788) == 0x3344_5566)
    }
}
