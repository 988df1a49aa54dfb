import Testing
import ParleySRTP

/// Known answers from libsrtp's own `srtp_validate` / `srtp_validate_gcm` (test/srtp_driver.c):
/// RFC 3711 key derivation plus AES-CM/HMAC-SHA1 (RFC 3711 §4) and AES-GCM (RFC 7714 §8) on a
/// fixed RTP and RTCP packet (SSRC 0xcafebabe, sequence 0x1234, first SRTCP index 1).
@Suite struct SRTPKnownAnswerTests {
    static let rtpPlaintext = SRTPFixtures.bytes("800f1234decafbadcafebabe" + String(repeating: "ab", count: 16))
    static let rtcpPlaintext = SRTPFixtures.bytes("81c8000bcafebabe" + String(repeating: "ab", count: 16))

    struct Vector: Sendable, CustomTestStringConvertible {
        var profile: SRTPProfile
        var key: String
        var salt: String
        var srtp: String
        var srtcp: String
        var testDescription: String { "\(profile)" }
    }

    static let vectors = [
        Vector(profile: .aes128CMHMACSHA1_80, key: "e1f97a0d3e018be0d64fa32c06de4139",
               salt: "0ec675ad498afeebb6960b3aabe6",
               srtp: "800f1234decafbadcafebabe4e55dc4ce79978d88ca4d215949d2402b78d6acc99ea179b8dbb",
               srtcp: "81c8000bcafebabe7128035be487b9bdbef89041f977a5a880000001993e08cd54d6c1230798"),
        Vector(profile: .aeadAES128GCM, key: "000102030405060708090a0b0c0d0e0f", salt: "a0a1a2a3a4a5a6a7a8a9aaab",
               srtp: "800f1234decafbadcafebabec5002ede04cfdd2eb91159e0880aa06ed2976826f796b201df3131a127e8a392",
               srtcp: "81c8000bcafebabec98b8b5df0392a55852b6c21ac8e7025c52c6fbea2b3b446ea31123ba88ce61e80000001"),
    ]

    @Test(arguments: vectors)
    func protectMatchesReference(vector: Vector) throws {
        let context = try SRTPFixtures.loopback(vector.profile, key: SRTPFixtures.bytes(vector.key),
                                                salt: SRTPFixtures.bytes(vector.salt))
        var buffer = SRTPFixtures.buffer(Self.rtpPlaintext)
        let length = try context.protect(&buffer, length: Self.rtpPlaintext.count)
        #expect(SRTPFixtures.hex(buffer[0..<length]) == vector.srtp)

        var rtcp = SRTPFixtures.buffer(Self.rtcpPlaintext)
        let rtcpLength = try context.protectRTCP(&rtcp, length: Self.rtcpPlaintext.count)
        #expect(SRTPFixtures.hex(rtcp[0..<rtcpLength]) == vector.srtcp)
    }

    @Test(arguments: vectors)
    func unprotectMatchesReference(vector: Vector) throws {
        let context = try SRTPFixtures.loopback(vector.profile, key: SRTPFixtures.bytes(vector.key),
                                                salt: SRTPFixtures.bytes(vector.salt))
        var srtp = SRTPFixtures.bytes(vector.srtp)
        let length = try context.unprotect(&srtp, length: srtp.count)
        #expect(Array(srtp[0..<length]) == Self.rtpPlaintext)

        var srtcp = SRTPFixtures.bytes(vector.srtcp)
        let rtcpLength = try context.unprotectRTCP(&srtcp, length: srtcp.count)
        #expect(Array(srtcp[0..<rtcpLength]) == Self.rtcpPlaintext)
    }
}
