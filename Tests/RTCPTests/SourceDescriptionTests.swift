import RTCP
import Testing

/// SDES (RFC 3550 §6.5), BYE (§6.6) and APP (§6.7).
@Suite struct SourceDescriptionTests {
    /// A CNAME chunk: 2 + 38 text bytes, then the null terminator and padding to 32 bits.
    static let cnameText = "{9c00eb92-1afb-9d49-a47d-91f64eee69f5}"
    static let cnamePacket: [UInt8] = [0x81, 0xCA, 0x00, 0x0C, 0x90, 0x2F, 0x9E, 0x2E, 0x01, 0x26]
        + Array(cnameText.utf8) + [0x00, 0x00, 0x00, 0x00]

    @Test func rfc3550CNAMEChunk() throws {
        let sdes = try roundTrip(SourceDescription.self, Self.cnamePacket)
        #expect(sdes == SourceDescription(source: 0x902F_9E2E, cname: Self.cnameText))
        #expect(sdes.cname(for: 0x902F_9E2E) == Self.cnameText)
        #expect(sdes.cname(for: 1) == nil)
    }

    /// §6.5: several items and chunks; the terminator may land on a boundary and then needs a
    /// whole word of nulls.
    @Test func rfc3550MultipleChunksAndItems() throws {
        let sdes = SourceDescription(chunks: [
            .init(source: 1, items: [.init(type: .cname, "a@b"), .init(type: .tool, "parley")]),
            .init(source: 2, items: [.init(type: .name, "xy")]),  // 4 + 4 = 8: terminator needs 4 more
            .init(source: 3, items: []),
            .init(source: 4, items: [.init(type: .priv, text: [3, 0x61, 0x62, 0x63, 0x64])]),
        ])
        let bytes = sdes.serialized
        #expect(bytes.count == sdes.serializedSize && bytes.count % 4 == 0)
        #expect(Array(bytes[24..<36]) == [0, 0, 0, 2, 0x02, 0x02, 0x78, 0x79, 0, 0, 0, 0])
        #expect(try roundTrip(SourceDescription.self, bytes) == sdes)
    }

    @Test func rfc3550ByeWithReason() throws {
        let bytes: [UInt8] = [0x82, 0xCB, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 2, 0x05] + Array("later".utf8) + [0, 0]
        let bye = try roundTrip(Goodbye.self, bytes)
        #expect(bye == Goodbye(sources: [1, 2], reason: "later"))
        #expect(bye.reasonText == "later")
    }

    @Test func byeWithoutReason() throws {
        let bye = try roundTrip(Goodbye.self, [0x81, 0xCB, 0x00, 0x01, 0x90, 0x2F, 0x9E, 0x2E])
        #expect(bye.sources == [0x902F_9E2E])
        #expect(bye.reason == nil)
    }

    @Test func rfc3550ApplicationDefined() throws {
        let bytes: [UInt8] = [0x80, 0xCC, 0x00, 0x03, 0x4B, 0xAA, 0xE1, 0xAB] + Array("NAMEABCD".utf8)
        let app = try roundTrip(ApplicationDefined.self, bytes)
        #expect(app == ApplicationDefined(subtype: 0, ssrc: 0x4BAA_E1AB, name: 0x4E41_4D45, data: Array("ABCD".utf8)))
        let odd = ApplicationDefined(subtype: 31, ssrc: 1, name: 2, data: [1, 2, 3, 4, 5])
        #expect(try ApplicationDefined(parsing: odd.serialized) == odd)
    }
}
