import Testing
@testable import SDP

/// SDES `a=crypto` (RFC 4568 §9.1): the RFC's examples, round trips and malformed values.
@Suite struct SDPCryptoTests {
    /// RFC 4568 §4's example offer line.
    @Test func section4_exampleAttribute() throws {
        let crypto = try SDPCrypto(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:4")
        #expect(crypto.tag == 1 && crypto.suite == "AES_CM_128_HMAC_SHA1_80")
        let key = try #require(crypto.keys.first)
        #expect(key.method == "inline" && key.keySalt.count == 30)
        #expect(key.lifetime == .powerOfTwo(20) && key.lifetime?.packets == 1 << 20)
        #expect(key.mki?.value == 1 && key.mki?.length == 4)
        #expect(key.split(keyLength: 16)?.salt.count == 14)
        #expect(crypto.description == "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR|2^20|1:4")
    }

    /// RFC 4568 §6.1/§9.1: several keys with MKIs, a decimal lifetime, session parameters.
    @Test func section9_1_keysAndSessionParameters() throws {
        let text = "2 F8_128_HMAC_SHA1_80 inline:MTIzNDU2Nzg5QUJDREUwMTIzNDU2Nzg5QUJjZGVm|2^20|1:4;"
            + "inline:QUJjZGVmMTIzNDU2Nzg5QUJDREUwMTIzNDU2Nzg5|1048576|2:4 FEC_ORDER=FEC_SRTP KDR=1 UNENCRYPTED_SRTCP"
        let crypto = try SDPCrypto(parsing: text)
        #expect(crypto.keys.count == 2)
        #expect(crypto.keys.map(\.mki?.value) == [1, 2])
        #expect(crypto.keys.last?.lifetime == .packets(1_048_576))
        #expect(crypto.sessionParameters == ["FEC_ORDER=FEC_SRTP", "KDR=1", "UNENCRYPTED_SRTCP"])
        #expect(crypto.sdpValue == text)
        #expect(try SDPCrypto(parsing: crypto.description) == crypto)
    }

    @Test func fromAParsedSessionDescription() throws {
        let sdp = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\nm=audio 49170 RTP/SAVP 0\r\n"
            + "a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj\r\n"
        let description = try SessionDescription(parsing: sdp)
        let attribute = try #require(description.media.first?.attributes.first { $0.name == "crypto" })
        let crypto = try SDPCrypto(attribute: attribute)
        #expect(crypto.suite == "AES_CM_128_HMAC_SHA1_32" && crypto.keys.first?.lifetime == nil && crypto.keys.first?.mki == nil)
        #expect(crypto.attribute == attribute)
    }

    /// Keys written without base64 padding (seen from some endpoints) decode too; output is padded.
    @Test func unpaddedKey() throws {
        let crypto = try SDPCrypto(parsing: "1 AES_256_CM_HMAC_SHA1_80 inline:AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLg")
        #expect(crypto.keys.first?.keySalt.count == 46)
        #expect(try SDPCrypto(parsing: crypto.description) == crypto)
    }

    @Test func malformedCryptoIsRefused() {
        let bad = [
            "", "1", "1 AES_CM_128_HMAC_SHA1_80", "x AES_CM_128_HMAC_SHA1_80 inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
            "1234567890 AES inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR", "1 AES-CM inline:PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR",
            "1 AES inline:", "1 AES inline:!!!!", "1 AES inline:PS1u|2^x", "1 AES inline:PS1u|1:0", "1 AES inline:PS1u|1:129",
            "1 AES inline:PS1u|1:4|2^20", "1 AES inline:PS1u|2^20|1:4|5", "1 AES :x", "1 AES inline:PS1u;",
        ]
        for text in bad {
            #expect(throws: SDPParseError.invalidValue("crypto"), "\(text)") { try SDPCrypto(parsing: text) }
        }
    }
}
