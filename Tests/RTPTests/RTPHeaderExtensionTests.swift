import RTP
import Testing

/// RFC 8285 one-byte and two-byte header extension forms.
@Suite struct RTPHeaderExtensionTests {
    static let fixed: [UInt8] = [0x90, 0x6F, 0x00, 0x01, 0, 0, 0, 2, 0, 0, 0, 3]

    /// RFC 8285 §4.2 layout: elements, padding bytes between them, block padded to 32 bits.
    @Test func rfc8285OneByteForm() throws {
        let block: [UInt8] = [
            0xBE, 0xDE, 0x00, 0x03,
            0x10, 0xD1,              // id 1, L=0: 1 byte
            0x21, 0xA1, 0xA2,        // id 2, L=1: 2 bytes
            0x00, 0x00,              // padding
            0x33, 0xB1, 0xB2, 0xB3, 0xB4,  // id 3, L=3: 4 bytes
        ]
        let bytes = Self.fixed + block + [0x55]
        try withView(bytes) { view in
            #expect(view.extensionProfile == 0xBEDE)
            let elements = Array(view.extensionElements)
            #expect(elements.map(\.id) == [1, 2, 3])
            #expect(elements.map { Array($0.data) } == [[0xD1], [0xA1, 0xA2], [0xB1, 0xB2, 0xB3, 0xB4]])
            #expect(view.extensionElement(id: 2).map(Array.init) == [0xA1, 0xA2])
            #expect(view.extensionElement(id: 9) == nil)
            #expect(Array(view.payload) == [0x55])
        }
        let packet = try RTPPacket(parsing: bytes)
        let ext = try #require(packet.headerExtension)
        #expect(ext.form == .oneByte)
        #expect(ext.elements == [
            RTPExtensionElement(id: 1, data: [0xD1]),
            RTPExtensionElement(id: 2, data: [0xA1, 0xA2]),
            RTPExtensionElement(id: 3, data: [0xB1, 0xB2, 0xB3, 0xB4]),
        ])
        // Re-serialized back to back: 2 + 3 + 5 = 10 bytes, padded to 12 at the end.
        #expect(ext.dataSize == 12)
        let again = try RTPPacket(parsing: packet.serialized)
        #expect(again == packet)
    }

    /// RFC 8285 §4.3: 8-bit id and length, zero-length elements allowed, app bits in the profile.
    @Test func rfc8285TwoByteForm() throws {
        let block: [UInt8] = [
            0x10, 0x07, 0x00, 0x03,  // profile 0x100 + appbits 7
            0x01, 0x00,              // id 1, length 0
            0x02, 0x01, 0x42,        // id 2, length 1
            0x00,                    // padding
            0xFE, 0x04, 1, 2, 3, 4,  // id 254, length 4
            0x00, 0x00,
        ]
        let bytes = Self.fixed + block
        try withView(bytes) { view in
            #expect(view.extensionProfile == 0x1007)
            let elements = Array(view.extensionElements)
            #expect(elements.map(\.id) == [1, 2, 254])
            #expect(elements.map(\.data.count) == [0, 1, 4])
        }
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.headerExtension == .twoByte(appBits: 7, [
            RTPExtensionElement(id: 1, data: []),
            RTPExtensionElement(id: 2, data: [0x42]),
            RTPExtensionElement(id: 254, data: [1, 2, 3, 4]),
        ]))
        #expect(try RTPPacket(parsing: packet.serialized) == packet)
    }

    /// RFC 8285 §4.2: id 15 stops processing; the bytes after it are ignored.
    @Test func rfc8285OneByteId15StopsProcessing() throws {
        let bytes = Self.fixed + [0xBE, 0xDE, 0x00, 0x02, 0x10, 0x01, 0xF3, 0x22, 0x22, 0x22, 0x22, 0x22]
        try withView(bytes) { view in
            var it = view.extensionElements
            #expect(it.next()?.id == 1)
            #expect(it.next() == nil)
            #expect(!it.isMalformed)
        }
        #expect(try RTPPacket(parsing: bytes).headerExtension?.elements == [RTPExtensionElement(id: 1, data: [1])])
    }

    /// RFC 8285 §4.1.1: the one-byte form when every element fits it, else the two-byte form.
    @Test func builderChoosesForm() throws {
        let small = [RTPExtensionElement(id: 14, data: Array(repeating: 1, count: 16))]
        #expect(try RTPHeaderExtension(elements: small).form == .oneByte)
        let id15 = [RTPExtensionElement(id: 15, data: [1])]
        #expect(try RTPHeaderExtension(elements: id15).form == .twoByte(appBits: 0))
        let empty = [RTPExtensionElement(id: 2, data: [])]
        #expect(try RTPHeaderExtension(elements: empty).form == .twoByte(appBits: 0))
        let long = [RTPExtensionElement(id: 2, data: Array(repeating: 1, count: 17))]
        #expect(try RTPHeaderExtension(elements: long).form == .twoByte(appBits: 0))
        #expect(throws: RTPError.invalidExtensionElement(id: 0, length: 1)) {
            try RTPHeaderExtension(elements: [RTPExtensionElement(id: 0, data: [1])])
        }
        #expect(throws: RTPError.invalidExtensionElement(id: 3, length: 256)) {
            try RTPHeaderExtension(elements: [RTPExtensionElement(id: 3, data: Array(repeating: 0, count: 256))])
        }
        #expect(RTPHeaderExtension.oneByte(long).isEncodable == false)
    }

    @Test func builtExtensionBytes() throws {
        let ext = try RTPHeaderExtension(elements: [
            RTPExtensionElement(id: 1, data: [0x8A]),
            RTPExtensionElement(id: 3, data: [0x01, 0x02]),
        ])
        let packet = RTPPacket(payloadType: 111, sequenceNumber: 1, timestamp: 2, ssrc: 3, headerExtension: ext)
        #expect(Array(packet.serialized.dropFirst(12)) == [0xBE, 0xDE, 0x00, 0x02, 0x10, 0x8A, 0x31, 0x01, 0x02, 0, 0, 0])
    }

    /// An X bit with a zero-length block is legal and round-trips.
    @Test func emptyExtensionBlock() throws {
        let bytes = Self.fixed + [0xBE, 0xDE, 0x00, 0x00, 0x77]
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.headerExtension == .oneByte([]))
        #expect(packet.payload == [0x77])
        #expect(packet.serialized == bytes)
    }

    @Test func extensionFormFromProfile() {
        #expect(RTPExtensionForm(profile: 0xBEDE) == .oneByte)
        #expect(RTPExtensionForm(profile: 0x1000) == .twoByte(appBits: 0))
        #expect(RTPExtensionForm(profile: 0x100F) == .twoByte(appBits: 15))
        #expect(RTPExtensionForm(profile: 0x1010) == .other(profile: 0x1010))
        #expect(RTPExtensionForm.twoByte(appBits: 3).profile == 0x1003)
    }
}
