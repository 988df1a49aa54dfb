@testable import STUN
import ParleyCrypto
import Testing
import WireKit

/// MESSAGE-INTEGRITY, MESSAGE-INTEGRITY-SHA256 and FINGERPRINT: computing, checking, and the
/// length-field adjustment of RFC 8489 §14.5–14.7.
@Suite struct IntegrityTests {
    static let key = STUNIntegrity.shortTermKey(password: "secret")
    static let sha1 = STUNIntegrity.sha1(key: key, hmac: hmacSHA1)
    static let sha256 = STUNIntegrity.sha256(key: key, hmac: hmacSHA256)
    static let request = STUNMessage(type: .bindingRequest, transactionID: rfc5769TransactionID,
                                     attributes: [.username("a:b"), .priority(1), .useCandidate, .iceControlling(42)])

    @Test(arguments: [false, true])
    func sha1SignsAndVerifies(fingerprint: Bool) throws {
        let bytes = try Self.request.serialized(integrity: Self.sha1, fingerprint: fingerprint)
        #expect(try verifyIntegrity(bytes, Self.sha1) == .valid)
        #expect(try verifyFingerprint(bytes) == (fingerprint ? .valid : .absent))
        #expect(try verifyIntegrity(bytes, .sha1(key: [0], hmac: hmacSHA1)) == .invalid)
        let parsed = try STUNMessage(parsing: bytes)
        #expect(parsed.attributes.dropLast(fingerprint ? 2 : 1).elementsEqual(Self.request.attributes))
    }

    /// §14.5: the HMAC covers the header with the length ending at MESSAGE-INTEGRITY, so it is
    /// the same with or without a FINGERPRINT after it.
    @Test func lengthFieldExcludesFingerprintWhenHashing() throws {
        let withFP = try Self.request.serialized(integrity: Self.sha1, fingerprint: true)
        let without = try Self.request.serialized(integrity: Self.sha1)
        #expect(Array(withFP[20..<(withFP.count - 8)]) == Array(without[20...]))
        #expect(withFP[2...3] == [0x00, UInt8(withFP.count - 20)])
        // The MAC matches an HMAC computed by hand over the prefix with the adjusted length.
        var covered = Array(without[..<(without.count - 24)])
        covered[3] = UInt8(without.count - 20)
        #expect(Array(without.suffix(20)) == HMAC.sha1(key: Self.key, message: covered))
    }

    @Test func sha256SignsAndVerifies() throws {
        let bytes = try Self.request.serialized(integrity: Self.sha256, fingerprint: true)
        let parsed = try STUNMessage(parsing: bytes)
        #expect(parsed.attributes.suffix(2).map(\.type) == [.messageIntegritySHA256, .fingerprint])
        #expect(try verifyIntegrity(bytes, Self.sha256) == .valid)
        #expect(try verifyIntegrity(bytes, Self.sha1) == .absent)
        #expect(try verifyFingerprint(bytes) == .valid)
    }

    /// §14.6: a receiver accepts MESSAGE-INTEGRITY-SHA256 truncated to 16 bytes.
    @Test func truncatedSHA256Verifies() throws {
        let unsigned = try Self.request.serialized()
        var covered = unsigned
        covered[3] = UInt8(unsigned.count - 20 + 4 + 16)
        let mac = HMAC.sha256(key: Self.key, message: covered)
        var w = ByteWriter()
        w.writeBytes(covered)
        w.writeUInt16(0x001C)
        w.writeUInt16(16)
        w.writeBytes(mac.prefix(16))
        #expect(try verifyIntegrity(w.bytes, Self.sha256) == .valid)
    }

    /// Both attributes: MESSAGE-INTEGRITY, then -SHA256, then FINGERPRINT; each MAC covers what
    /// precedes it, with the length field ending at that MAC.
    @Test func bothIntegrityAttributes() throws {
        let sha1Only = try Self.request.serialized(integrity: Self.sha1)
        var covered = sha1Only
        covered[3] = UInt8(sha1Only.count - 20 + 36)
        let mac = HMAC.sha256(key: Self.key, message: covered)
        var w = ByteWriter()
        w.writeBytes(covered)
        w.writeUInt16(0x001C)
        w.writeUInt16(32)
        w.writeBytes(mac)
        let parsed = try STUNMessage(parsing: w.bytes)
        #expect(parsed.attributes.suffix(2).map(\.type) == [.messageIntegrity, .messageIntegritySHA256])
        #expect(try verifyIntegrity(w.bytes, Self.sha256) == .valid)
        #expect(try verifyIntegrity(w.bytes, Self.sha1) == .valid)
    }

    @Test func tamperingIsDetected() throws {
        let bytes = try Self.request.serialized(integrity: Self.sha1, fingerprint: true)
        for i in [0, 3, 8, 20, 25, bytes.count - 9] {
            var t = bytes
            t[i] ^= 0x01
            guard (try? STUNMessage(parsing: t)) != nil else { continue }
            #expect(try verifyIntegrity(t, Self.sha1) == .invalid, "byte \(i)")
        }
    }

    /// Re-signing a parsed message replaces its integrity attributes instead of duplicating them.
    @Test func reSigningReplacesOldIntegrity() throws {
        let first = try STUNMessage(parsing: Self.request.serialized(integrity: Self.sha1, fingerprint: true))
        let other = STUNIntegrity.sha1(key: [9, 9], hmac: hmacSHA1)
        let resigned = try first.serialized(integrity: other, fingerprint: true)
        #expect(try verifyIntegrity(resigned, other) == .valid)
        #expect(try STUNMessage(parsing: resigned).attributes.count == first.attributes.count)
        let refingerprinted = try first.serialized(fingerprint: true)
        #expect(try verifyIntegrity(refingerprinted, Self.sha1) == .valid)
        #expect(try verifyFingerprint(refingerprinted) == .valid)
    }

    /// A static function can be passed where an `HMACFunction` / `MD5Function` is expected.
    @Test func functionReferencesInject() throws {
        let direct = STUNIntegrity.sha1(key: Self.key, hmac: HMAC.sha1(key:message:))
        let bytes = try Self.request.serialized(integrity: direct)
        #expect(try verifyIntegrity(bytes, Self.sha1) == .valid)
        let md5: MD5Function = MD5.hash
        #expect(Hex.encode(md5(Array("".utf8))) == "d41d8cd98f00b204e9800998ecf8427e")  // RFC 1321 §A.5
        #expect(Hex.encode(md5(Array("abc".utf8))) == "900150983cd24fb0d6963f7d28e17f72")
    }

    /// CRC-32 check value (ITU-T V.42 / ISO 3309): "123456789" → 0xCBF43926.
    @Test func crc32CheckValue() {
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32.checksum($0) } == 0xCBF4_3926)
        #expect([UInt8]().withUnsafeBytes { CRC32.checksum($0) } == 0)
    }
}
