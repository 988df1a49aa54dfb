import STUN
import Testing
import WireKit

/// Inputs the parser must refuse with the `STUNError` naming the fault, never a trap (pion/rtcp-style table).
@Suite struct MalformedInputTests {
    static let twentyZeros = [UInt8](repeating: 0, count: 20)
    static let integrity = (UInt16(0x0008), twentyZeros)
    static let fingerprint = (UInt16(0x8028), [UInt8](repeating: 0, count: 4))
    static let username = (UInt16(0x0006), Array("user".utf8))

    static let cases: [(String, [UInt8], STUNError)] = [
        ("empty", [], .truncated(needed: 20, available: 0)),
        ("19-byte header", Array(rawMessage().prefix(19)), .truncated(needed: 20, available: 19)),
        ("bad magic cookie", rawMessage(cookie: 0x2112_A443), .badMagicCookie(0x2112_A443)),
        ("RFC 3489 message without cookie", rawMessage(cookie: 0), .badMagicCookie(0)),
        ("top bits of type set", [0xC0] + rawMessage().dropFirst(), .topBitsSet),
        ("length not a multiple of 4", rawMessage(attributes: [(0x8022, [0x61])], length: 5), .unalignedLength(5)),
        ("length past end", rawMessage(length: 8), .truncated(needed: 8, available: 0)),
        ("trailing bytes", rawMessage(trailing: [0, 0, 0, 0]), .trailingBytes(4)),
        ("attribute length past end", rawMessage(length: 8) + [0x80, 0x22, 0x00, 0x08, 0x61, 0x62, 0x63, 0x64],
         .attributePastEnd(.software, length: 8, available: 4)),
        ("attribute length past end by one", rawMessage(length: 8) + [0x80, 0x22, 0x00, 0x05, 0x61, 0x62, 0x63, 0x64],
         .attributePastEnd(.software, length: 5, available: 4)),
        ("unpadded final attribute", Array(rawMessage(attributes: [(0x8022, [0x61])], length: 5).dropLast(3)),
         .unalignedLength(5)),
        ("attribute after MESSAGE-INTEGRITY", rawMessage(attributes: [integrity, username]),
         .misplacedAttribute(.username, after: .messageIntegrity)),
        ("attribute after FINGERPRINT", rawMessage(attributes: [fingerprint, username]),
         .misplacedAttribute(.username, after: .fingerprint)),
        ("MESSAGE-INTEGRITY after FINGERPRINT", rawMessage(attributes: [fingerprint, integrity]),
         .misplacedAttribute(.messageIntegrity, after: .fingerprint)),
        ("two MESSAGE-INTEGRITY", rawMessage(attributes: [integrity, integrity]),
         .misplacedAttribute(.messageIntegrity, after: .messageIntegrity)),
        ("MESSAGE-INTEGRITY after -SHA256",
         rawMessage(attributes: [(0x001C, [UInt8](repeating: 0, count: 32)), integrity]),
         .misplacedAttribute(.messageIntegrity, after: .messageIntegritySHA256)),
        ("MESSAGE-INTEGRITY of 19 bytes", rawMessage(attributes: [(0x0008, Array(twentyZeros.dropLast()))]),
         .invalidValueLength(.messageIntegrity, length: 19)),
        ("MESSAGE-INTEGRITY-SHA256 of 12 bytes", rawMessage(attributes: [(0x001C, Array(twentyZeros.prefix(12)))]),
         .invalidValueLength(.messageIntegritySHA256, length: 12)),
        ("MESSAGE-INTEGRITY-SHA256 of 18 bytes", rawMessage(attributes: [(0x001C, Array(twentyZeros.prefix(18)))]),
         .invalidValueLength(.messageIntegritySHA256, length: 18)),
        ("FINGERPRINT of 3 bytes", rawMessage(attributes: [(0x8028, [0, 0, 0])]),
         .invalidValueLength(.fingerprint, length: 3)),
        ("XOR-MAPPED-ADDRESS family 3", rawMessage(attributes: [(0x0020, [0, 3, 0, 0, 1, 2, 3, 4])]),
         .unknownAddressFamily(3)),
        ("XOR-MAPPED-ADDRESS IPv4 of 20 bytes",
         rawMessage(attributes: [(0x0020, [0, 1, 0, 0] + Array(twentyZeros.prefix(16)))]),
         .invalidValueLength(.xorMappedAddress, length: 20)),
        ("XOR-MAPPED-ADDRESS IPv6 of 8 bytes", rawMessage(attributes: [(0x0020, [0, 2, 0, 0, 1, 2, 3, 4])]),
         .invalidValueLength(.xorMappedAddress, length: 8)),
        ("MAPPED-ADDRESS of 2 bytes", rawMessage(attributes: [(0x0001, [0, 1])]),
         .invalidValueLength(.mappedAddress, length: 2)),
        ("USERNAME not UTF-8", rawMessage(attributes: [(0x0006, [0xFF, 0xFE])]), .textNotUTF8(.username)),
        ("USERNAME of 513 bytes", rawMessage(attributes: [(0x0006, [UInt8](repeating: 0x61, count: 513))]),
         .textTooLong(.username, length: 513)),
        ("ERROR-CODE class 7", rawMessage(attributes: [(0x0009, [0, 0, 7, 0])]),
         .invalidErrorCode(errorClass: 7, number: 0)),
        ("ERROR-CODE number 100", rawMessage(attributes: [(0x0009, [0, 0, 4, 100])]),
         .invalidErrorCode(errorClass: 4, number: 100)),
        ("ERROR-CODE of 3 bytes", rawMessage(attributes: [(0x0009, [0, 0, 4])]),
         .invalidValueLength(.errorCode, length: 3)),
        ("UNKNOWN-ATTRIBUTES of odd length", rawMessage(attributes: [(0x000A, [0, 1, 0])]),
         .invalidValueLength(.unknownAttributes, length: 3)),
        ("PRIORITY of 3 bytes", rawMessage(attributes: [(0x0024, [0, 0, 1])]),
         .invalidValueLength(.priority, length: 3)),
        ("USE-CANDIDATE with a value", rawMessage(attributes: [(0x0025, [0, 0, 0, 0])]),
         .invalidValueLength(.useCandidate, length: 4)),
        ("ICE-CONTROLLING of 4 bytes", rawMessage(attributes: [(0x802A, [0, 0, 0, 1])]),
         .invalidValueLength(.iceControlling, length: 4)),
        ("LIFETIME of 8 bytes", rawMessage(attributes: [(0x000D, [UInt8](repeating: 0, count: 8))]),
         .invalidValueLength(.lifetime, length: 8)),
        ("CHANNEL-NUMBER of 2 bytes", rawMessage(attributes: [(0x000C, [0x40, 0])]),
         .invalidValueLength(.channelNumber, length: 2)),
        ("REQUESTED-TRANSPORT of 1 byte", rawMessage(attributes: [(0x0019, [17])]),
         .invalidValueLength(.requestedTransport, length: 1)),
        ("DONT-FRAGMENT with a value", rawMessage(attributes: [(0x001A, [0])]),
         .invalidValueLength(.dontFragment, length: 1)),
    ]

    @Test(arguments: cases)
    func refuses(name: String, bytes: [UInt8], expected: STUNError) {
        do {
            let m = try STUNMessage(parsing: bytes)
            Issue.record("\(name): parsed as \(m)")
        } catch {
            #expect(error == expected, "\(name)")
        }
    }

    /// §14.7: a message whose CRC does not match still parses; the check reports `.invalid`.
    @Test func wrongFingerprintIsInvalid() throws {
        let good = try STUNMessage(type: .bindingRequest, transactionID: rfc5769TransactionID,
                                   attributes: [.username("user")]).serialized(fingerprint: true)
        #expect(try verifyFingerprint(good) == .valid)
        var bad = good
        bad[bad.count - 1] ^= 0x01
        #expect(try verifyFingerprint(bad) == .invalid)
        var tampered = good
        tampered[24] ^= 0x20  // flip a bit in USERNAME
        #expect(try verifyFingerprint(tampered) == .invalid)
    }

    @Test func verifiersRefuseMalformedBytes() {
        let bad = rawMessage(cookie: 0)
        #expect(throws: STUNError.badMagicCookie(0)) { try verifyFingerprint(bad) }
        #expect(throws: STUNError.badMagicCookie(0)) { try verifyIntegrity(bad, .sha1(key: [1], hmac: hmacSHA1)) }
    }

    /// Malformed bytes never trap: every prefix and every single-byte corruption of a vector.
    @Test func prefixesAndBitFlipsNeverTrap() throws {
        let vector = RFC5769Tests.sampleRequest
        for n in 0..<vector.count { _ = try? STUNMessage(parsing: Array(vector.prefix(n))) }
        for i in 0..<vector.count {
            for bit in 0..<8 {
                var v = vector
                v[i] ^= 1 << bit
                if let m = try? STUNMessage(parsing: v) {
                    // Whatever parses re-serializes and re-parses to the same value.
                    #expect(try STUNMessage(parsing: m.serialized()) == m)
                }
                _ = try? verifyFingerprint(v)
            }
        }
    }
}
