import RTCP
import Testing

/// Malformed RTCP is refused with a specific error, never a trap.
@Suite struct RTCPMalformedTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let error: RTCPError
        var testDescription: String { name }
    }

    static let ssrc: [UInt8] = [0, 0, 0, 1]

    static let cases: [Case] = [
        Case(name: "empty compound", bytes: [], error: .truncated(needed: 4, available: 0)),
        Case(name: "short header", bytes: [0x80, 0xC9, 0x00], error: .truncated(needed: 4, available: 3)),
        Case(name: "bad version", bytes: [0x40, 0xC9, 0x00, 0x01] + ssrc, error: .unsupportedVersion(1)),
        Case(name: "length field past end", bytes: [0x80, 0xC9, 0x00, 0x07] + ssrc,
             error: .lengthPastEnd(declared: 32, available: 8)),
        Case(name: "second packet length past end", bytes: [0x80, 0xC9, 0x00, 0x01] + ssrc + [0x80, 0xC9, 0x00, 0x01],
             error: .lengthPastEnd(declared: 8, available: 4)),
        Case(name: "trailing partial header", bytes: [0x80, 0xC9, 0x00, 0x01] + ssrc + [0x80],
             error: .truncated(needed: 4, available: 1)),
        Case(name: "RR report count mismatch", bytes: [0x82, 0xC9, 0x00, 0x07] + ssrc + Array(repeating: 0, count: 24),
             error: .countMismatch(count: 2, available: 24)),
        Case(name: "SR body truncated", bytes: [0x80, 0xC8, 0x00, 0x01] + ssrc, error: .truncated(needed: 8, available: 0)),
        Case(name: "pad count zero", bytes: [0xA0, 0xC9, 0x00, 0x02] + ssrc + [0, 0, 0, 0],
             error: .invalidPadding(count: 0, available: 8)),
        Case(name: "padding larger than body", bytes: [0xA0, 0xC9, 0x00, 0x02] + ssrc + [0, 0, 0, 9],
             error: .invalidPadding(count: 9, available: 8)),
        Case(name: "padding eats the SSRC", bytes: [0xA0, 0xC9, 0x00, 0x02] + ssrc + [0, 0, 0, 8],
             error: .truncated(needed: 4, available: 0)),
        Case(name: "SDES item past end", bytes: [0x81, 0xCA, 0x00, 0x02] + ssrc + [0x01, 0x09, 0x61, 0x62],
             error: .malformedSourceDescription),
        Case(name: "SDES missing terminator", bytes: [0x81, 0xCA, 0x00, 0x02] + ssrc + [0x01, 0x02, 0x61, 0x62],
             error: .malformedSourceDescription),
        Case(name: "SDES source count mismatch", bytes: [0x82, 0xCA, 0x00, 0x02] + ssrc + [0, 0, 0, 0],
             error: .countMismatch(count: 2, available: 0)),
        Case(name: "BYE reason past end", bytes: [0x81, 0xCB, 0x00, 0x02] + ssrc + [0x05, 0x61, 0x62, 0x63],
             error: .byeReasonPastEnd),
        Case(name: "BYE source count mismatch", bytes: [0x82, 0xCB, 0x00, 0x01] + ssrc,
             error: .countMismatch(count: 2, available: 4)),
        Case(name: "APP without name", bytes: [0x80, 0xCC, 0x00, 0x01] + ssrc, error: .truncated(needed: 4, available: 0)),
        Case(name: "NACK without media SSRC", bytes: [0x81, 0xCD, 0x00, 0x01] + ssrc, error: .truncated(needed: 4, available: 0)),
        Case(name: "PLI with FCI", bytes: [0x81, 0xCE, 0x00, 0x03] + ssrc + ssrc + ssrc, error: .invalidLength(12)),
        Case(name: "FIR entry cut short", bytes: [0x84, 0xCE, 0x00, 0x03] + ssrc + ssrc + ssrc, error: .invalidLength(12)),
        Case(name: "REMB SSRC count mismatch",
             bytes: [0x8F, 0xCE, 0x00, 0x05] + ssrc + [0, 0, 0, 0] + Array("REMB".utf8) + [2, 0, 0, 1] + ssrc,
             error: .countMismatch(count: 2, available: 4)),
        Case(name: "TWCC chunk overflow",
             bytes: [0x8F, 0xCD, 0x00, 0x04] + ssrc + ssrc + [0x00, 0x01, 0x00, 0x14, 0, 0, 0, 0],
             error: .twccChunkOverflow),
        Case(name: "TWCC run of 8191 with no chunk for the rest",
             bytes: [0x8F, 0xCD, 0x00, 0x05] + ssrc + ssrc + [0x00, 0x01, 0xFF, 0xFF, 0, 0, 0, 0, 0x1F, 0xFF, 0, 0],
             error: .twccChunkOverflow),
        Case(name: "TWCC delta overflow",
             bytes: [0x8F, 0xCD, 0x00, 0x05] + ssrc + ssrc + [0x00, 0x01, 0x00, 0x03, 0, 0, 0, 0, 0x40, 0x03, 0x00, 0x10],
             error: .twccDeltaOverflow),
        Case(name: "TWCC trailing bytes without P",
             bytes: [0x8F, 0xCD, 0x00, 0x06] + ssrc + ssrc + [0x00, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0x20, 0x01, 0x10, 0, 0, 0, 0, 0],
             error: .invalidLength(24)),
    ]

    @Test(arguments: cases)
    func refused(_ c: Case) {
        #expect(compoundError(c.bytes) == c.error)
    }

    @Test func singlePacketParsersCheckTypeAndLength() {
        let pli: [UInt8] = [0x81, 0xCE, 0x00, 0x02] + Self.ssrc + Self.ssrc
        #expect(parseError { () throws(RTCPError) in _ = try FullIntraRequest(parsing: pli) }
                == .wrongPacketType(packetType: 206, count: 1))
        #expect(parseError { () throws(RTCPError) in _ = try PictureLossIndication(parsing: pli + [0, 0, 0, 0]) }
                == .trailingBytes(declared: 12, actual: 16))
        #expect(parseError { () throws(RTCPError) in _ = try SenderReport(parsing: pli) }
                == .wrongPacketType(packetType: 206, count: 1))
        let afb: [UInt8] = [0x8F, 0xCE, 0x00, 0x03] + Self.ssrc + Self.ssrc + Array("ABCD".utf8)
        #expect(parseError { () throws(RTCPError) in _ = try ReceiverEstimatedMaximumBitrate(parsing: afb) } == .notREMB)
    }

    /// Every prefix and every single-byte corruption of a valid compound either parses or throws.
    @Test func truncationsAndBitFlipsNeverTrap() throws {
        let bytes = RTCPPacketTests.browserCompound
        for n in 0..<bytes.count { _ = compoundError(Array(bytes.prefix(n))) }
        for i in 0..<bytes.count {
            for flip: UInt8 in [0x01, 0x20, 0x80, 0xFF] {
                var copy = bytes
                copy[i] ^= flip
                if let packets = try? RTCPPacket.parseCompound(copy) {
                    #expect(try RTCPPacket.parseCompound(RTCPPacket.serialized(packets)) == packets)
                }
            }
        }
    }
}
