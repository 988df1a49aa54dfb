import STUN
import Testing
import WireKit

/// Every attribute kind survives serialize → parse, including unknown ones.
@Suite struct RoundTripTests {
    static let v4 = STUNAddress(ip: .v4(0xC000_0201), port: 3478)
    static let v6 = STUNAddress(ip: .v6(high: 0x2001_0DB8_0000_0000, low: 0x0000_0000_0000_0001), port: 49152)

    static let attributes: [STUNAttribute] = [
        .mappedAddress(v4), .mappedAddress(v6), .xorMappedAddress(v4), .xorMappedAddress(v6),
        .alternateServer(v6), .username("alice:bob"), .realm("example.org"), .nonce("abc"),
        .software("Parley"), .errorCode(.unknownAttribute), .errorCode(STUNErrorCode(code: 699, reason: "")),
        .unknownAttributes([STUNAttributeType(rawValue: 0x0031), .evenPort]),
        .priority(0x6E00_01FF), .useCandidate, .iceControlled(1), .iceControlling(.max),
        .channelNumber(0x4001), .lifetime(600), .xorPeerAddress(v4), .xorPeerAddress(v6),
        .data([1, 2, 3]), .data([]), .xorRelayedAddress(v6), .requestedAddressFamily(.ipv6),
        .requestedAddressFamily(STUNAddressFamily(rawValue: 9)), .requestedTransport(17), .dontFragment,
        .unknown(type: STUNAttributeType(rawValue: 0x7FFF), value: [9, 8, 7]),
        .unknown(type: STUNAttributeType(rawValue: 0xC001), value: []),
        .messageIntegrity([UInt8](repeating: 0xAB, count: 20)),
        .messageIntegritySHA256([UInt8](repeating: 0xCD, count: 16)),
        .fingerprint(0x1234_5678),
    ]

    @Test(arguments: attributes)
    func singleAttribute(attribute: STUNAttribute) throws {
        let m = STUNMessage(type: .init(method: .allocate, messageClass: .request), transactionID: rfc5769TransactionID,
                            attributes: [attribute])
        let bytes = try m.serialized()
        #expect(bytes.count == m.serializedSize)
        #expect(bytes.count % 4 == 0)
        #expect(try STUNMessage(parsing: bytes) == m)
    }

    @Test func allAttributesInOneMessage() throws {
        let m = STUNMessage(type: .bindingSuccess, transactionID: rfc5769TransactionID, attributes: Self.attributes)
        let bytes = try m.serialized()
        let parsed = try STUNMessage(parsing: bytes)
        #expect(parsed == m)
        #expect(try parsed.serialized() == bytes)
    }

    /// Unknown attributes keep their bytes; comprehension-required ones are listed for a 420.
    @Test func unknownAttributesRoundTripAndAreReported() throws {
        let raw = rawMessage(attributes: [(0x7FFF, [1, 2, 3, 4, 5]), (0xFFFE, [6]), (0x0006, Array("u".utf8))])
        let m = try STUNMessage(parsing: raw)
        #expect(m.attributes[0] == .unknown(type: STUNAttributeType(rawValue: 0x7FFF), value: [1, 2, 3, 4, 5]))
        #expect(m.attributes[1] == .unknown(type: STUNAttributeType(rawValue: 0xFFFE), value: [6]))
        #expect(m.unknownComprehensionRequired == [STUNAttributeType(rawValue: 0x7FFF)])
        #expect(try m.serialized() == raw)
    }

    @Test func xorAddressEncoding() throws {
        // RFC 8489 §14.2: X-Port is the port XOR 0x2112, X-Address IPv4 the address XOR the cookie.
        let m = STUNMessage(type: .bindingSuccess, transactionID: rfc5769TransactionID, attributes: [.xorMappedAddress(Self.v4)])
        let bytes = try m.serialized()
        #expect(Array(bytes[20...]) == [0x00, 0x20, 0x00, 0x08, 0x00, 0x01, 0x0D ^ 0x21, 0x96 ^ 0x12, 0xE1, 0x12, 0xA6, 0x43])
    }

    @Test func errorCodeEncoding() throws {
        let m = STUNMessage(type: .bindingError, transactionID: rfc5769TransactionID, attributes: [.errorCode(.roleConflict)])
        let bytes = try m.serialized()
        #expect(Array(bytes[20..<28]) == [0x00, 0x09, 0x00, 0x11, 0x00, 0x00, 0x04, 0x57])
        #expect(try STUNMessage(parsing: bytes).errorCode == STUNErrorCode(code: 487, reason: "Role Conflict"))
    }

    @Test func tooLongForTheLengthFieldThrows() throws {
        let m = STUNMessage(type: STUNMessageType(method: .data, messageClass: .indication), transactionID: rfc5769TransactionID,
                            attributes: [.xorPeerAddress(Self.v4), .data([UInt8](repeating: 0, count: 65_535))])
        var w = ByteWriter()
        #expect(throws: STUNError.messageTooLong(attributeBytes: 65_552)) { try m.serialize(into: &w) }
        #expect(w.count == 0)
        let fits = STUNMessage(type: m.type, transactionID: m.transactionID, attributes: [.data([UInt8](repeating: 0, count: 65_528))])
        #expect(try fits.serialized().count == 20 + 65_532)
    }

    @Test func serializesAfterExistingBytesInTheWriter() throws {
        var w = ByteWriter()
        w.writeBytes([0xEE, 0xEE])
        let integrity = STUNIntegrity.sha1(key: [1, 2, 3], hmac: hmacSHA1)
        let m = STUNMessage(type: .bindingRequest, transactionID: rfc5769TransactionID, attributes: [.username("a:b")])
        try m.serialize(into: &w, integrity: integrity, fingerprint: true)
        let bytes = Array(w.bytes.dropFirst(2))
        #expect(try verifyIntegrity(bytes, integrity) == .valid)
        #expect(try verifyFingerprint(bytes) == .valid)
    }

    @Test func ipv6Text() {
        #expect(Self.v6.description == "[2001:db8::1]:49152")
        #expect(STUNAddress.IP.v6(high: 0, low: 0).description == "::")
        #expect(STUNAddress.IP.v6(high: 0, low: 1).description == "::1")
        #expect(STUNAddress.IP.v6(high: 0x2001_0DB8_0000_0001, low: 0x0000_0000_0000_0001).description == "2001:db8:0:1::1")
        #expect(STUNAddress.IP.v6(high: 0x2001_0DB8_0000_0001, low: 0x0001_0001_0001_0001).description == "2001:db8:0:1:1:1:1:1")
        #expect(STUNAddress.IP(bytes: [1, 2, 3]) == nil)
        #expect(STUNAddress.IP(bytes: [10, 0, 0, 1])?.description == "10.0.0.1")
    }

    @Test func channelDataRoundTrip() throws {
        let c = ChannelData(channelNumber: 0x4001, data: [1, 2, 3, 4, 5])
        #expect(try c.serialized() == [0x40, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5])
        let padded = try c.serialized(padded: true)
        #expect(padded == [0x40, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5, 0, 0, 0])
        #expect(try ChannelData(parsing: padded) == c)
        #expect(padded.withUnsafeBytes { ChannelData.frameLength($0) } == 12)
        #expect(try ChannelData(parsing: c.serialized()) == c)
    }

    static let badChannelData: [([UInt8], STUNError)] = [
        ([], .truncated(needed: 4, available: 0)),
        ([0x40], .truncated(needed: 4, available: 1)),
        ([0x40, 0x01, 0x00], .truncated(needed: 4, available: 3)),
        ([0x40, 0x01, 0x00, 0x05, 1, 2, 3, 4], .truncated(needed: 5, available: 4)),  // data past end
        ([0x3F, 0xFF, 0x00, 0x00], .channelNumberOutOfRange(0x3FFF)),
        ([0x50, 0x00, 0x00, 0x00], .channelNumberOutOfRange(0x5000)),
        ([0x40, 0x01, 0x00, 0x00, 0, 0, 0, 0], .trailingBytes(4)),  // more than padding after the data
    ]

    @Test(arguments: badChannelData)
    func channelDataRefuses(bytes: [UInt8], expected: STUNError) {
        #expect(throws: expected) { try ChannelData(parsing: bytes) }
    }

    @Test func channelDataSerializeRefusesBadValues() {
        #expect(throws: STUNError.channelNumberOutOfRange(0x3FFF)) { try ChannelData(channelNumber: 0x3FFF, data: []).serialized() }
        #expect(throws: STUNError.channelDataTooLong(65_536)) {
            try ChannelData(channelNumber: 0x4000, data: [UInt8](repeating: 0, count: 65_536)).serialized()
        }
    }
}
