import STUN
import Testing
import WireKit

/// Inputs the parser must refuse with a `WireError`, never a trap (pion/rtcp-style table).
@Suite struct MalformedInputTests {
    enum Kind: Sendable { case truncated, malformed }

    static let twentyZeros = [UInt8](repeating: 0, count: 20)
    static let integrity = (UInt16(0x0008), twentyZeros)
    static let fingerprint = (UInt16(0x8028), [UInt8](repeating: 0, count: 4))
    static let username = (UInt16(0x0006), Array("user".utf8))

    static let cases: [(String, [UInt8], Kind)] = [
        ("empty", [], .truncated),
        ("19-byte header", Array(rawMessage().prefix(19)), .truncated),
        ("bad magic cookie", rawMessage(cookie: 0x2112_A443), .malformed),
        ("RFC 3489 message without cookie", rawMessage(cookie: 0), .malformed),
        ("top bits of type set", [0xC0] + rawMessage().dropFirst(), .malformed),
        ("length not a multiple of 4", rawMessage(attributes: [(0x8022, [0x61])], length: 5), .malformed),
        ("length past end", rawMessage(length: 8), .truncated),
        ("trailing bytes", rawMessage(trailing: [0, 0, 0, 0]), .malformed),
        ("attribute length past end", rawMessage(length: 8) + [0x80, 0x22, 0x00, 0x08, 0x61, 0x62, 0x63, 0x64], .malformed),
        ("attribute length past end by one", rawMessage(length: 8) + [0x80, 0x22, 0x00, 0x05, 0x61, 0x62, 0x63, 0x64],
         .malformed),
        ("unpadded final attribute", Array(rawMessage(attributes: [(0x8022, [0x61])], length: 5).dropLast(3)), .malformed),
        ("attribute after MESSAGE-INTEGRITY", rawMessage(attributes: [integrity, username]), .malformed),
        ("attribute after FINGERPRINT", rawMessage(attributes: [fingerprint, username]), .malformed),
        ("MESSAGE-INTEGRITY after FINGERPRINT", rawMessage(attributes: [fingerprint, integrity]), .malformed),
        ("two MESSAGE-INTEGRITY", rawMessage(attributes: [integrity, integrity]), .malformed),
        ("MESSAGE-INTEGRITY after -SHA256",
         rawMessage(attributes: [(0x001C, [UInt8](repeating: 0, count: 32)), integrity]), .malformed),
        ("MESSAGE-INTEGRITY of 19 bytes", rawMessage(attributes: [(0x0008, Array(twentyZeros.dropLast()))]), .malformed),
        ("MESSAGE-INTEGRITY-SHA256 of 12 bytes", rawMessage(attributes: [(0x001C, Array(twentyZeros.prefix(12)))]), .malformed),
        ("MESSAGE-INTEGRITY-SHA256 of 18 bytes", rawMessage(attributes: [(0x001C, Array(twentyZeros.prefix(18)))]), .malformed),
        ("FINGERPRINT of 3 bytes", rawMessage(attributes: [(0x8028, [0, 0, 0])]), .malformed),
        ("XOR-MAPPED-ADDRESS family 3", rawMessage(attributes: [(0x0020, [0, 3, 0, 0, 1, 2, 3, 4])]), .malformed),
        ("XOR-MAPPED-ADDRESS IPv4 of 20 bytes",
         rawMessage(attributes: [(0x0020, [0, 1, 0, 0] + Array(twentyZeros.prefix(16)))]), .malformed),
        ("XOR-MAPPED-ADDRESS IPv6 of 8 bytes", rawMessage(attributes: [(0x0020, [0, 2, 0, 0, 1, 2, 3, 4])]), .malformed),
        ("MAPPED-ADDRESS of 2 bytes", rawMessage(attributes: [(0x0001, [0, 1])]), .malformed),
        ("USERNAME not UTF-8", rawMessage(attributes: [(0x0006, [0xFF, 0xFE])]), .malformed),
        ("USERNAME of 513 bytes", rawMessage(attributes: [(0x0006, [UInt8](repeating: 0x61, count: 513))]), .malformed),
        ("ERROR-CODE class 7", rawMessage(attributes: [(0x0009, [0, 0, 7, 0])]), .malformed),
        ("ERROR-CODE number 100", rawMessage(attributes: [(0x0009, [0, 0, 4, 100])]), .malformed),
        ("ERROR-CODE of 3 bytes", rawMessage(attributes: [(0x0009, [0, 0, 4])]), .malformed),
        ("UNKNOWN-ATTRIBUTES of odd length", rawMessage(attributes: [(0x000A, [0, 1, 0])]), .malformed),
        ("PRIORITY of 3 bytes", rawMessage(attributes: [(0x0024, [0, 0, 1])]), .malformed),
        ("USE-CANDIDATE with a value", rawMessage(attributes: [(0x0025, [0, 0, 0, 0])]), .malformed),
        ("ICE-CONTROLLING of 4 bytes", rawMessage(attributes: [(0x802A, [0, 0, 0, 1])]), .malformed),
        ("LIFETIME of 8 bytes", rawMessage(attributes: [(0x000D, [UInt8](repeating: 0, count: 8))]), .malformed),
        ("CHANNEL-NUMBER of 2 bytes", rawMessage(attributes: [(0x000C, [0x40, 0])]), .malformed),
        ("REQUESTED-TRANSPORT of 1 byte", rawMessage(attributes: [(0x0019, [17])]), .malformed),
        ("DONT-FRAGMENT with a value", rawMessage(attributes: [(0x001A, [0])]), .malformed),
    ]

    @Test(arguments: cases)
    func refuses(name: String, bytes: [UInt8], kind: Kind) {
        do {
            let m = try STUNMessage(parsing: bytes)
            Issue.record("\(name): parsed as \(m)")
        } catch {
            switch (error, kind) {
            case (.truncated, .truncated), (.malformed, .malformed): break
            default: Issue.record("\(name): \(error), want \(kind)")
            }
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
        #expect(throws: WireError.self) { try verifyFingerprint(bad) }
        #expect(throws: WireError.self) { try verifyIntegrity(bad, .sha1(key: [1], hmac: hmacSHA1)) }
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
