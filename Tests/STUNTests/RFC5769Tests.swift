import ParleyCrypto
import STUN
import Testing
import WireKit

/// RFC 5769 "Test Vectors for STUN". The vectors pad with spaces (0x20) instead of zeros, so
/// re-serialized bytes differ in the padding; checks are on parsed values and on integrity.
@Suite struct RFC5769Tests {
    /// §2.1: a Binding request with SOFTWARE, PRIORITY, ICE-CONTROLLED, USERNAME,
    /// MESSAGE-INTEGRITY and FINGERPRINT; short-term password "VOkJxbRl1RmTxUk/WvJxBt".
    static let sampleRequest = hex("""
        00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
        00 24 00 04 6e 00 01 ff
        80 29 00 08 93 2f f9 b1 51 26 3b 36
        00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
        00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
        80 28 00 04 e5 7a 3b cf
        """)
    static let shortTermPassword = "VOkJxbRl1RmTxUk/WvJxBt"

    /// §2.2: a Binding success response with XOR-MAPPED-ADDRESS 192.0.2.1:32853.
    static let ipv4Response = hex("""
        01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 08 00 01 a1 47 e1 12 a6 43
        00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7
        80 28 00 04 c0 7d 4c 96
        """)

    /// §2.3: the same with XOR-MAPPED-ADDRESS [2001:db8:1234:5678:11:2233:4455:6677]:32853.
    static let ipv6Response = hex("""
        01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
        80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
        00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9
        00 08 00 14 a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41
        80 28 00 04 c8 fb 0b 4c
        """)

    /// §2.4: a request with long-term credentials: username "マトリックス", realm "example.org",
    /// password "TheMatrIX" (after SASLprep), no FINGERPRINT.
    static let longTermRequest = hex("""
        00 01 00 60 21 12 a4 42 78 ad 34 33 c6 ad 72 c0 29 da 41 2e
        00 06 00 12 e3 83 9e e3 83 88 e3 83 aa e3 83 83 e3 82 af e3 82 b9 00 00
        00 15 00 1c 66 2f 2f 34 39 39 6b 39 35 34 64 36 4f 4c 33 34 6f 4c 39 46 53 54 76 79 36 34 73 41
        00 14 00 0b 65 78 61 6d 70 6c 65 2e 6f 72 67 00
        00 08 00 14 f6 70 24 65 6d d6 4a 3e 02 b8 e0 71 2e 85 c9 a2 8c a8 96 66
        """)

    static let mappedPort: UInt16 = 32853

    @Test func sampleRequestParses() throws {
        let m = try parse(Self.sampleRequest)
        #expect(m.type == .bindingRequest)
        #expect(m.transactionID == rfc5769TransactionID)
        #expect(m.software == "STUN test client")
        #expect(m.priority == 0x6e00_01ff)
        #expect(m.iceControlled == 0x932f_f9b1_5126_3b36)
        #expect(m.username == "evtj:h6vY")
        #expect(m.attributes.map(\.type) == [.software, .priority, .iceControlled, .username, .messageIntegrity, .fingerprint])
        #expect(m.attributes.last == .fingerprint(0xe57a_3bcf))
    }

    @Test func sampleRequestIntegrityAndFingerprint() throws {
        let key = STUNIntegrity.shortTermKey(password: Self.shortTermPassword)
        #expect(try verifyIntegrity(Self.sampleRequest, .sha1(key: key, hmac: hmacSHA1)) == .valid)
        #expect(try verifyIntegrity(Self.sampleRequest, .sha1(key: Array("wrong".utf8), hmac: hmacSHA1)) == .invalid)
        #expect(try verifyIntegrity(Self.sampleRequest, .sha256(key: key, hmac: hmacSHA256)) == .absent)
        #expect(try verifyFingerprint(Self.sampleRequest) == .valid)
    }

    @Test func ipv4ResponseParses() throws {
        let m = try parse(Self.ipv4Response)
        #expect(m.type == .bindingSuccess)
        #expect(m.software == "test vector")
        #expect(m.xorMappedAddress == STUNAddress(ip: .v4(0xC000_0201), port: Self.mappedPort))
        #expect(m.xorMappedAddress?.description == "192.0.2.1:32853")
        let key = STUNIntegrity.shortTermKey(password: Self.shortTermPassword)
        #expect(try verifyIntegrity(Self.ipv4Response, .sha1(key: key, hmac: hmacSHA1)) == .valid)
        #expect(try verifyFingerprint(Self.ipv4Response) == .valid)
    }

    @Test func ipv6ResponseParses() throws {
        let m = try parse(Self.ipv6Response)
        let ip = STUNAddress.IP(bytes: hex("20010db8 12345678 00112233 44556677"))!
        #expect(m.xorMappedAddress == STUNAddress(ip: ip, port: Self.mappedPort))
        #expect(m.xorMappedAddress?.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
        let key = STUNIntegrity.shortTermKey(password: Self.shortTermPassword)
        #expect(try verifyIntegrity(Self.ipv6Response, .sha1(key: key, hmac: hmacSHA1)) == .valid)
        #expect(try verifyFingerprint(Self.ipv6Response) == .valid)
    }

    @Test func longTermRequestParsesAndVerifies() throws {
        let m = try parse(Self.longTermRequest)
        #expect(m.username == "\u{30DE}\u{30C8}\u{30EA}\u{30C3}\u{30AF}\u{30B9}")
        #expect(m.nonce == "f//499k954d6OL34oL9FSTvy64sA")
        #expect(m.realm == "example.org")
        let key = STUNIntegrity.longTermKey(username: m.username!, realm: "example.org", password: "TheMatrIX",
                                            md5: MD5.hash)
        #expect(try verifyIntegrity(Self.longTermRequest, .sha1(key: key, hmac: hmacSHA1)) == .valid)
        #expect(try verifyFingerprint(Self.longTermRequest) == .absent)
    }

    /// Re-encoding a vector with zero padding and fresh MESSAGE-INTEGRITY and FINGERPRINT gives a
    /// message that parses to the same values and verifies.
    @Test(arguments: [sampleRequest, ipv4Response, ipv6Response])
    func reEncodesAndVerifies(vector: [UInt8]) throws {
        let m = try parse(vector)
        let integrity = STUNIntegrity.sha1(key: STUNIntegrity.shortTermKey(password: Self.shortTermPassword), hmac: hmacSHA1)
        let bytes = try m.serialized(integrity: integrity, fingerprint: true)
        #expect(bytes.count == vector.count)
        #expect(try parse(bytes).attributes.map(\.type) == m.attributes.map(\.type))
        #expect(try verifyIntegrity(bytes, integrity) == .valid)
        #expect(try verifyFingerprint(bytes) == .valid)
    }

    /// §2.4 pads with zeros, so encoding its values with a fresh MESSAGE-INTEGRITY reproduces it
    /// byte for byte, and so does re-serializing the parsed attributes as they are.
    @Test func longTermRequestEncodesExactly() throws {
        let m = try parse(Self.longTermRequest)
        #expect(try m.serialized() == Self.longTermRequest)
        let key = STUNIntegrity.longTermKey(username: m.username!, realm: m.realm!, password: "TheMatrIX", md5: MD5.hash)
        let unsigned = STUNMessage(type: m.type, transactionID: m.transactionID,
                                   attributes: [.username(m.username!), .nonce(m.nonce!), .realm(m.realm!)])
        #expect(try unsigned.serialized(integrity: .sha1(key: key, hmac: hmacSHA1)) == Self.longTermRequest)
    }

    /// §2.1 with its space padding replaced by zeros: the same bytes as our encoder up to
    /// MESSAGE-INTEGRITY (the HMAC then differs, as it covers the padding).
    @Test func sampleRequestEncodesLikeTheVectorWithZeroPadding() throws {
        let m = try parse(Self.sampleRequest)
        let integrity = STUNIntegrity.sha1(key: STUNIntegrity.shortTermKey(password: Self.shortTermPassword), hmac: hmacSHA1)
        let ours = try m.serialized(integrity: integrity, fingerprint: true)
        var zeroed = Self.sampleRequest
        #expect(zeroed[73..<76] == [0x20, 0x20, 0x20])
        zeroed.replaceSubrange(73..<76, with: [0, 0, 0])  // USERNAME padding
        #expect(Array(ours[..<76]) == Array(zeroed[..<76]))
    }
}
