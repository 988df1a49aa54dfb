import RTP
import Testing
import WireKit

/// RFC 3550 §5.1 fixed header, CSRCs, padding; owned and zero-copy forms agree.
@Suite struct RTPPacketTests {
    /// V=2 P=0 X=0 CC=0 | M=1 PT=111 | seq 0x1234 | ts 0xDEADBEEF | SSRC 0x11223344 | payload.
    static let minimal: [UInt8] = [
        0x80, 0xEF, 0x12, 0x34,
        0xDE, 0xAD, 0xBE, 0xEF,
        0x11, 0x22, 0x33, 0x44,
        0xAA, 0xBB,
    ]

    @Test func rfc3550FixedHeaderParsesWithoutCopying() throws {
        try withView(Self.minimal) { view in
            #expect(view.version == 2)
            #expect(!view.hasPadding && !view.hasExtension)
            #expect(view.csrcCount == 0)
            #expect(view.marker)
            #expect(view.payloadType == 111)
            #expect(view.sequenceNumber == 0x1234)
            #expect(view.timestamp == 0xDEAD_BEEF)
            #expect(view.ssrc == 0x1122_3344)
            #expect(view.headerSize == 12)
            #expect(view.payloadRange == 12..<14)
            #expect(Array(view.payload) == [0xAA, 0xBB])
            #expect(view.extensionRange == nil && view.extensionProfile == nil)
            #expect(view.paddingCount == 0)
            // The payload view points into the caller's buffer.
            #expect(view.payload.baseAddress == view.bytes.baseAddress.map { $0 + 12 })
        }
        let packet = try RTPPacket(parsing: Self.minimal)
        #expect(packet == RTPPacket(marker: true, payloadType: 111, sequenceNumber: 0x1234, timestamp: 0xDEAD_BEEF,
                                    ssrc: 0x1122_3344, payload: [0xAA, 0xBB]))
        #expect(packet.serialized == Self.minimal)
        #expect(packet.serializedSize == Self.minimal.count)
    }

    /// RFC 3550 §5.1: CC CSRCs follow the SSRC; P means the last octet counts the padding.
    @Test func rfc3550CSRCsAndPadding() throws {
        let bytes: [UInt8] = [
            0xA2, 0x08, 0xFF, 0xFF,  // V=2 P=1 CC=2, PT 8 (PCMA), seq 65535
            0x00, 0x00, 0x00, 0x01,
            0xCA, 0xFE, 0xBA, 0xBE,
            0x00, 0x00, 0x00, 0x0A,  // CSRC 10
            0x00, 0x00, 0x00, 0x0B,  // CSRC 11
            0x01, 0x02, 0x03,        // payload
            0x00, 0x00, 0x03,        // 3 bytes of padding
        ]
        try withView(bytes) { view in
            #expect(view.hasPadding)
            #expect(view.csrcCount == 2)
            #expect(view.csrc(at: 0) == 10 && view.csrc(at: 1) == 11)
            #expect(view.headerSize == 20)
            #expect(Array(view.payload) == [1, 2, 3])
            #expect(view.paddingCount == 3)
        }
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.csrcs == [10, 11])
        #expect(packet.paddingCount == 3)
        #expect(packet.sequenceNumber == 65535)
        #expect(packet.serialized == bytes)
    }

    /// A packet whose P bit makes the whole payload padding.
    @Test func paddingMayConsumeEntirePayload() throws {
        let bytes: [UInt8] = [0xA0, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4]
        try withView(bytes) { view in
            #expect(view.payload.isEmpty)
            #expect(view.paddingCount == 4)
        }
    }

    /// An opaque (non-RFC 8285) extension profile keeps its words; reference shape from a capture
    /// with profile 0x0001 and one word of 0xFF.
    @Test func opaqueExtensionProfileRoundTrips() throws {
        let bytes: [UInt8] = [
            0x90, 0xE0, 0x69, 0x8F, 0xD9, 0xC2, 0x93, 0xDA, 0x1C, 0x64, 0x27, 0x82,
            0x00, 0x01, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF,
            0x98, 0x36, 0xBE, 0x88, 0x9E,
        ]
        try withView(bytes) { view in
            #expect(view.extensionProfile == 1)
            #expect(view.extensionRange == 16..<20)
            #expect(Array(view.extensionElements).isEmpty)
            #expect(view.sequenceNumber == 27023 && view.timestamp == 3_653_407_706 && view.ssrc == 476_325_762)
        }
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.headerExtension == .opaque(profile: 1, data: [0xFF, 0xFF, 0xFF, 0xFF]))
        #expect(packet.payload == [0x98, 0x36, 0xBE, 0x88, 0x9E])
        #expect(packet.serialized == bytes)
    }

    @Test func serializesIntoCallerBufferAndWriter() throws {
        let packet = try RTPPacket(parsing: Self.minimal)
        var buffer = [UInt8](repeating: 0xEE, count: 32)
        let written = try buffer.withUnsafeMutableBytes { raw in try packet.serialize(into: raw) }
        #expect(written == Self.minimal.count)
        #expect(Array(buffer[..<written]) == Self.minimal)
        #expect(buffer[written] == 0xEE)

        var small = [UInt8](repeating: 0, count: 13)
        _ = small.withUnsafeMutableBytes { raw in
            #expect(throws: RTPError.bufferTooSmall(needed: 14, available: 13)) { try packet.serialize(into: raw) }
        }

        var writer = ByteWriter(capacity: 64)
        packet.serialize(into: &writer)
        #expect(writer.bytes == Self.minimal)
        writer.reset()
        packet.serialize(into: &writer)
        #expect(writer.bytes == Self.minimal)

        var appended: [UInt8] = [9]
        packet.serialize(into: &appended)
        #expect(appended == [9] + Self.minimal)
    }

    @Test func roundTripsEveryField() throws {
        let packet = RTPPacket(marker: true, payloadType: 96, sequenceNumber: 65535, timestamp: .max, ssrc: 42,
                               csrcs: Array(1...15),
                               headerExtension: try RTPHeaderExtension(elements: [
                                   RTPExtensionElement(id: 1, data: [0x80]),
                                   RTPExtensionElement(id: 3, data: [0x12, 0x34]),
                               ]),
                               payload: Array(0..<200), paddingCount: 7)
        let bytes = packet.serialized
        #expect(bytes.count == packet.serializedSize)
        #expect(bytes.count % 4 == 0 || packet.paddingCount > 0)
        #expect(try RTPPacket(parsing: bytes) == packet)
        try withView(bytes) { view in
            #expect(view.csrcCount == 15)
            #expect(view.csrc(at: 14) == 15)
            #expect(view.paddingCount == 7)
            #expect(view.payload.count == 200)
        }
    }

    /// The CC field is 4 bits: a 16th CSRC is not written, and the header stays consistent.
    @Test func moreThanFifteenCSRCsAreCapped() throws {
        let packet = RTPPacket(payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3, csrcs: Array(1...16))
        let parsed = try RTPPacket(parsing: packet.serialized)
        #expect(parsed.csrcs == Array(1...15))
    }
}
