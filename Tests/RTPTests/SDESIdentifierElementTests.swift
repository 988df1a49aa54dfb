import RTP
import Testing

/// RFC 8843 §15.1 mid and RFC 8852 §3 RtpStreamId / RepairedRtpStreamId elements.
@Suite struct SDESIdentifierElementTests {
    /// A Chromium-shaped simulcast packet: mid "1" (id 4) and rid "h" (id 10), one-byte form.
    static let packet: [UInt8] = [
        0x90, 0x60, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x11, 0x22, 0x33, 0x44,
        0xBE, 0xDE, 0x00, 0x01,
        0x40, 0x31,  // id 4, one byte: "1"
        0xA0, 0x68,  // id 10, one byte: "h"
        0x10, 0x00, 0x00,
    ]

    @Test func rfc8852StreamIDAndRFC8843MidAreReadAndMatchedInPlace() throws {
        try withView(Self.packet) { view throws in
            let mid = try #require(view.extensionElement(id: 4))
            let rid = try #require(view.extensionElement(id: 10))
            #expect(try SDESIdentifierElement(parsing: mid, kind: .mid).text == "1")
            #expect(try SDESIdentifierElement(parsing: rid, kind: .streamID).text == "h")
            #expect(SDESIdentifierElement.matches(rid, Array("h".utf8)))
            #expect(!SDESIdentifierElement.matches(rid, Array("hh".utf8)) && !SDESIdentifierElement.matches(rid, Array("q".utf8)))
        }
    }

    @Test func badIdentifiersAreRefused() {
        for (bytes, kind) in [([UInt8](), SDESIdentifierElement.Kind.mid), ([0x20], .mid), ([0x68, 0x21], .streamID),
                              ([0x00], .streamID), ([UInt8](repeating: 0x61, count: 256), .mid)] {
            bytes.withUnsafeBytes { data in
                #expect(throws: RTPError.self) { try SDESIdentifierElement(parsing: data, kind: kind) }
            }
        }
        [UInt8]("a-_Z9".utf8).withUnsafeBytes { data in
            #expect((try? SDESIdentifierElement(parsing: data, kind: .streamID))?.text == "a-_Z9")
        }
    }
}
