import Testing
import ParleyCrypto

private func hex(_ s: String) -> [UInt8] { Hex.decode(s)! }

/// FIPS 180-4 example messages (NIST CSRC "Example Values").
@Suite struct DigestFIPS180Tests {
    static let twoBlock = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (twoBlock, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func sha1(message: String, expected: String) {
        #expect(Hex.encode(Digest.sha1(Array(message.utf8))) == expected)
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (twoBlock, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256(message: String, expected: String) {
        #expect(Hex.encode(Digest.sha256(Array(message.utf8))) == expected)
    }

    @Test func millionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hex.encode(Digest.sha256(message)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(Hex.encode(Digest.sha1(message)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }
}

/// RFC 4231 §4 test cases for HMAC-SHA256 (case 5, truncated output, is not applicable).
@Suite struct HMACRFC4231Tests {
    static let bigKey = [UInt8](repeating: 0xaa, count: 131)

    @Test(arguments: [
        (hex(String(repeating: "0b", count: 20)), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (hex("0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        (bigKey, Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (bigKey, Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                        + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ])
    func hmacSHA256(key: [UInt8], data: [UInt8], expected: String) {
        #expect(Hex.encode(HMAC.sha256(key: key, message: data)) == expected)
    }
}

/// RFC 2202 §3 test cases for HMAC-SHA1.
@Suite struct HMACRFC2202Tests {
    @Test(arguments: [
        (hex(String(repeating: "0b", count: 20)), Array("Hi There".utf8), "b617318655057264e28bc0b6fb378c8ef146be00"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "125d7342b9ac11cd91a39af48aa17b4f63f175d3"),
        ([UInt8](repeating: 0xaa, count: 80), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "aa4ae5e15272d00e95705637ce8a3b55ed402112"),
    ])
    func hmacSHA1(key: [UInt8], data: [UInt8], expected: String) {
        #expect(Hex.encode(HMAC.sha1(key: key, message: data)) == expected)
    }

    @Test func emptyKeyAndMessage() {
        // openssl dgst -sha256 -mac HMAC -macopt hexkey: </dev/null
        #expect(Hex.encode(HMAC.sha256(key: [], message: [])) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}

@Suite struct ConstantTimeAndRandomTests {
    @Test func constantTimeEquals() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    }

    @Test func randomBytesDiffer() {
        let a = SecureRandom.bytes(32), b = SecureRandom.bytes(32)
        #expect(a.count == 32 && a != b)
        #expect(SecureRandom.bytes(0).isEmpty)
    }

    @Test func hexAndAlphanumeric() {
        let h = SecureRandom.hex(byteCount: 16)
        #expect(h.count == 32 && h.allSatisfy { "0123456789abcdef".contains($0) })
        let s = SecureRandom.alphanumeric(40)
        #expect(s.count == 40 && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(Hex.decode("0aFf") == [0x0a, 0xff])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}
