import Foundation
import ParleyTestSupport
import Testing
import ParleyCrypto

/// `a=fingerprint` formatting and parsing (RFC 8122 §5) and the generated certificate.
@Suite(.tags(.interop)) struct DTLSFingerprintTests {
    @Test func generatedCertificateFingerprintRoundTrips() throws {
        let identity = try CertificateIdentity()
        let value = identity.fingerprint.sdpValue
        #expect(value.hasPrefix("sha-256 ") && value.count == 8 + 32 * 3 - 1)
        #expect(value.dropFirst(8).allSatisfy { $0 == ":" || $0.isNumber || ("A"..."F").contains($0) })
        #expect(DTLSFingerprint(sdpValue: value) == identity.fingerprint)
        #expect(DTLSFingerprint(sdpValue: "a=fingerprint:" + value.lowercased()) == identity.fingerprint)
        #expect(identity.fingerprint.matches(certificateDER: identity.derCertificate))
        #expect(try !identity.fingerprint.matches(certificateDER: CertificateIdentity().derCertificate))
    }

    @Test(arguments: DTLSFingerprint.Algorithm.allCases)
    func everyAlgorithmRoundTrips(algorithm: DTLSFingerprint.Algorithm) throws {
        let identity = try CertificateIdentity()
        let fingerprint = DTLSFingerprint(algorithm: algorithm, certificateDER: identity.derCertificate)
        #expect(fingerprint.digest.count == algorithm.digestLength)
        let parsed = try #require(DTLSFingerprint(sdpValue: "  \(fingerprint.sdpValue.uppercased())\r\n"))
        #expect(parsed == fingerprint && parsed.algorithm == algorithm && parsed.sdpValue == fingerprint.sdpValue)
        #expect(parsed.matches(certificateDER: identity.derCertificate))
    }

    static func pairs(_ count: Int, _ pair: String = "AB") -> String {
        Array(repeating: pair, count: count).joined(separator: ":")
    }

    static let malformed: [String] = [
        "", "sha-256", "sha-256 ", "md5 " + pairs(16),
        "sha-256 " + pairs(31),                        // too short
        "sha-256 " + pairs(33),                        // too long
        "sha-256 " + String(repeating: "AB", count: 32),  // no colons
        "sha-256 " + pairs(31) + ":G1",                // not hex
        "sha-256 " + pairs(31) + "::AB",               // empty pair
        "sha-1 " + pairs(40, "A"),                     // single digits
    ]

    @Test(arguments: malformed)
    func rejectsMalformedValues(value: String) {
        #expect(DTLSFingerprint(sdpValue: value) == nil)
    }

    @Test func comparesAlgorithmAndDigest() throws {
        let digest = [UInt8](repeating: 0xAB, count: 32)
        let a = try #require(DTLSFingerprint(algorithm: .sha256, digest: digest))
        var other = digest
        other[31] = 0xAC
        #expect(a != DTLSFingerprint(algorithm: .sha256, digest: other))
        #expect(DTLSFingerprint(algorithm: .sha1, digest: digest) == nil)
        #expect(a.sdpValue == "sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"))
    }

    /// The certificate is what the brief asks for, as the `openssl` tool reads it.
    @Test(.enabled(if: CommandLineTool.hasOpenSSL))
    func opensslAgreesWithCertificateAndFingerprint() throws {
        let identity = try CertificateIdentity()
        let text = try CommandLineTool.run(CommandLineTool.openssl, ["x509", "-noout", "-text"], input: identity.pemCertificate)
        #expect(text.contains("Version: 3"))
        #expect(text.contains("CN = parley") || text.contains("CN=parley"))
        #expect(text.contains("ecdsa-with-SHA256"))
        #expect(text.contains("prime256v1") || text.contains("P-256"))
        let line = try CommandLineTool.run(CommandLineTool.openssl, ["x509", "-noout", "-fingerprint", "-sha256"],
                                           input: identity.pemCertificate)
        // "sha256 Fingerprint=AB:CD:…" (older tools print "SHA256 Fingerprint=").
        let hex = try #require(line.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(DTLSFingerprint(sdpValue: "sha-256 " + hex) == identity.fingerprint)
        #expect(identity.fingerprint.sdpValue == "sha-256 " + hex)
    }
}
