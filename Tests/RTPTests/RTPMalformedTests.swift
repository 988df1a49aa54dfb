import RTP
import Testing

/// Malformed input is refused with a specific error, never a trap (RFC 3550 §5.1, §5.3.1).
@Suite struct RTPMalformedTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let error: RTPError
        var testDescription: String { name }
    }

    static let header: [UInt8] = [0x80, 0x60, 0x00, 0x01, 0, 0, 0, 2, 0, 0, 0, 3]

    static let cases: [Case] = [
        Case(name: "empty", bytes: [], error: .truncated(needed: 12, available: 0)),
        Case(name: "short fixed header", bytes: Array(header.prefix(11)), error: .truncated(needed: 12, available: 11)),
        Case(name: "version 0", bytes: [0x00] + header.dropFirst(), error: .unsupportedVersion(0)),
        Case(name: "version 1", bytes: [0x40] + header.dropFirst(), error: .unsupportedVersion(1)),
        Case(name: "version 3", bytes: [0xC0] + header.dropFirst(), error: .unsupportedVersion(3)),
        Case(name: "CSRC list past end", bytes: [0x82] + header.dropFirst() + [0, 0, 0, 1],
             error: .truncated(needed: 20, available: 16)),
        Case(name: "extension header past end", bytes: [0x90] + header.dropFirst() + [0xBE, 0xDE],
             error: .truncated(needed: 16, available: 14)),
        Case(name: "extension length past end", bytes: [0x90] + header.dropFirst() + [0xBE, 0xDE, 0x00, 0x02, 0x10, 0x01, 0, 0],
             error: .extensionPastEnd(declared: 8, available: 4)),
        Case(name: "extension length 0xFFFF", bytes: [0x90] + header.dropFirst() + [0xBE, 0xDE, 0xFF, 0xFF],
             error: .extensionPastEnd(declared: 0x3FFFC, available: 0)),
        Case(name: "pad count zero", bytes: [0xA0] + header.dropFirst() + [1, 2, 0],
             error: .invalidPadding(count: 0, available: 3)),
        Case(name: "padding larger than packet", bytes: [0xA0] + header.dropFirst() + [1, 2, 4],
             error: .invalidPadding(count: 4, available: 3)),
        Case(name: "padding bit with no bytes after header", bytes: [0xA0] + header.dropFirst(),
             error: .invalidPadding(count: 3, available: 0)),
        Case(name: "padding reaching into extension",
             bytes: [0xB0] + header.dropFirst() + [0xBE, 0xDE, 0x00, 0x01, 0x10, 0x01, 0x00, 0x00, 0x02],
             error: .invalidPadding(count: 2, available: 1)),
    ]

    @Test(arguments: cases)
    func refusedByViewAndPacket(_ c: Case) {
        #expect(viewError(c.bytes) == c.error)
        #expect(packetError(c.bytes) == c.error)
    }

    /// RFC 8285 §4.2: an element whose length runs past the extension block is malformed. The
    /// view still validates (lengths of the block itself are fine); its element walk stops and
    /// flags it, and the owned parse refuses it.
    @Test func elementPastEndOfBlock() throws {
        let bytes: [UInt8] = [0x90] + Self.header.dropFirst() + [0xBE, 0xDE, 0x00, 0x01, 0x10, 0xAA, 0x23, 0x01]
        try withView(bytes) { view in
            var elements = view.extensionElements
            #expect(elements.next()?.id == 1)
            #expect(elements.next() == nil)
            #expect(elements.isMalformed)
        }
        #expect(packetError(bytes) == .malformedExtensionElement(offset: 2))
    }

    /// Two-byte form: an id with no room for its length byte.
    @Test func twoByteElementMissingLength() {
        let bytes: [UInt8] = [0x90] + Self.header.dropFirst() + [0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05]
        #expect(packetError(bytes) == .malformedExtensionElement(offset: 3))
    }

    /// Every prefix of a valid packet either parses or throws; none traps.
    @Test func everyTruncationIsHandled() throws {
        let packet = RTPPacket(marker: true, payloadType: 100, sequenceNumber: 7, timestamp: 8, ssrc: 9, csrcs: [1, 2],
                               headerExtension: .twoByte(appBits: 0, [RTPExtensionElement(id: 200, data: [1, 2, 3])]),
                               payload: [5, 6, 7], paddingCount: 2)
        let bytes = packet.serialized
        for n in 0..<bytes.count {
            let prefix = Array(bytes.prefix(n))
            _ = viewError(prefix)
            _ = packetError(prefix)
        }
        #expect(try RTPPacket(parsing: bytes) == packet)
    }
}

/// Single-byte corruptions of valid packets: each either fails to parse or round-trips stably.
@Suite struct RTPCorruptionTests {
    @Test func bitFlipsParseOrThrowAndRoundTrip() throws {
        let seeds = [RTPPacketTests.minimal, RTPExtensionValueTests.audioPacket,
                     RTPPacket(payloadType: 1, sequenceNumber: 2, timestamp: 3, ssrc: 4, csrcs: [5],
                               headerExtension: .twoByte(appBits: 1, [RTPExtensionElement(id: 9, data: [])]),
                               payload: [6], paddingCount: 3).serialized]
        for seed in seeds {
            for i in 0..<seed.count {
                for flip: UInt8 in [0x01, 0x0F, 0x10, 0x20, 0x80, 0xFF] {
                    var copy = seed
                    copy[i] ^= flip
                    guard let packet = try? RTPPacket(parsing: copy) else { continue }
                    #expect(try RTPPacket(parsing: packet.serialized) == packet)
                }
            }
        }
    }
}
