import Testing
import ParleyCrypto

/// ES256 (RFC 7518 §3.4) on P-256 keys loaded from PEM: the RFC 7515 A.3 example, round trips,
/// tampering, and keys that are not P-256.
@Suite struct ECDSATests {
    // RFC 7515 Appendix A.3: the example key (JWK x, y, d) and its JWS.
    static let x = Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU")!
    static let y = Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")!
    static let d = Base64URL.decode("jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI")!
    static let signingInput = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let signature = Base64URL.decode("DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q")!

    /// PEM armour around DER (standard base64, 64 characters a line, RFC 7468).
    static func pem(_ label: String, _ der: [UInt8]) -> String {
        var text = String(Base64URL.encode(der).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.count % 4 != 0 { text += "=" }
        var lines: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }

    /// SubjectPublicKeyInfo for id-ecPublicKey / prime256v1 with an uncompressed point (RFC 5480).
    static var publicPEM: String {
        let prefix: [UInt8] = [0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86,
                               0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04]
        return pem("PUBLIC KEY", prefix + x + y)
    }

    /// ECPrivateKey (RFC 5915) with the curve and public key.
    static var privatePEM: String {
        let der: [UInt8] = [0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20] + d
            + [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0xA1, 0x44, 0x03, 0x42, 0x00, 0x04] + x + y
        return pem("EC PRIVATE KEY", der)
    }

    @Test func rfc7515AppendixA3SignatureVerifies() throws {
        let key = try P256VerifyingKey(pem: Self.publicPEM)
        #expect(key.isValidSignature(Self.signature, for: Array(Self.signingInput.utf8)))
        var tampered = Self.signature
        tampered[63] ^= 1
        #expect(!key.isValidSignature(tampered, for: Array(Self.signingInput.utf8)))
        #expect(!key.isValidSignature(Self.signature, for: Array((Self.signingInput + "x").utf8)))
        #expect(!key.isValidSignature(Self.signature.prefix(63), for: Array(Self.signingInput.utf8)))
        #expect(!key.isValidSignature([UInt8](repeating: 0, count: 64), for: Array(Self.signingInput.utf8)))
    }

    @Test func rfc7515AppendixA3KeySignsVerifiably() throws {
        let key = try P256SigningKey(pem: Self.privatePEM)
        #expect(key.verifyingKey.pem == (try P256VerifyingKey(pem: Self.publicPEM)).pem)
        let signature = try key.signature(for: Array(Self.signingInput.utf8))
        #expect(signature.count == 64)
        #expect(try P256VerifyingKey(pem: Self.publicPEM).isValidSignature(signature, for: Array(Self.signingInput.utf8)))
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect("\(key)" == "P256SigningKey(<private>)")
    }

    @Test func generatedKeysRoundTripThroughPKCS8() throws {
        let key = try P256SigningKey.generate()
        let reloaded = try P256SigningKey(pem: key.pkcs8PEM)
        let message = Array("provider token".utf8)
        let signature = try reloaded.signature(for: message)
        #expect(key.verifyingKey.isValidSignature(signature, for: message))
        #expect(reloaded.verifyingKey.pem == key.verifyingKey.pem)
        #expect(try key.signature(for: message) != signature, "ECDSA signatures are randomized")
        let digest = Digest.sha256(message)
        #expect(key.verifyingKey.isValidSignature(try key.signature(forDigest: digest), forDigest: digest))
        #expect(throws: ECDSAError.self) { try key.signature(forDigest: [1, 2, 3]) }
    }

    /// A P-384 key (from `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384`).
    static let p384 = """
    -----BEGIN PRIVATE KEY-----
    MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDBXbR3EcU17lXM68fmT
    sIQkoZyIquKiWyCovnvdTCcDJDGq+FDv9e42sCAyNh2pqLihZANiAAQZ6nk5lg73
    BnPs3joFAhvNhzmBttI9FS1JYeI2aogTEFo2DyD+lRQgnPf9/UfvVVAKJ4tlJwvm
    5YAmXiFnx1tgGglDp5+B+EZ5PCKxhNQF1QD+S9e0Ey2ZO2ZzX9GO+Zs=
    -----END PRIVATE KEY-----
    """

    @Test func rejectsOtherKeysAndGarbage() {
        #expect(throws: ECDSAError.self) { try P256SigningKey(pem: Self.p384) }
        #expect(throws: ECDSAError.self) { try P256SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(throws: ECDSAError.self) { try P256SigningKey(pem: "") }
        #expect(throws: ECDSAError.self) { try P256SigningKey(pemFile: "/nonexistent/key.p8") }
        #expect(throws: ECDSAError.self) { try P256VerifyingKey(pem: Self.privatePEM) }
    }
}
