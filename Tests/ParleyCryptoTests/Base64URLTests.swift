import Testing
import ParleyCrypto

/// RFC 4648 §10 vectors, in the base64url alphabet without padding (RFC 7515 §2).
@Suite struct Base64URLRFC4648Tests {
    @Test(arguments: [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
                      ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")])
    func vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func urlAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
    }

    @Test(arguments: ["Zg==", "Zm8=", "Z", "Zh", "Zm9", "a+b/", "Zm 9v", "Zm9v\n", "é"])
    func rejectsNonCanonicalOrForeign(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func roundTripsAllLengths() {
        for n in 0..<70 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }
}
