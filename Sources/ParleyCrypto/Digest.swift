import COpenSSL

/// One-shot message digests (FIPS 180-4) computed by OpenSSL's EVP interface.
public enum Digest {
    /// SHA-1 (FIPS 180-4): 20 bytes. Only for protocols that require it (STUN, `X-Twilio-Signature`).
    public static func sha1(_ message: some Collection<UInt8>) -> [UInt8] {
        evpDigest(EVP_sha1(), Array(message), length: 20)
    }

    /// SHA-256 (FIPS 180-4): 32 bytes.
    public static func sha256(_ message: some Collection<UInt8>) -> [UInt8] {
        evpDigest(EVP_sha256(), Array(message), length: 32)
    }

    /// Runs `EVP_Digest`; a failure here means OpenSSL itself is broken, so it traps.
    private static func evpDigest(_ md: OpaquePointer?, _ message: [UInt8], length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var outLength: UInt32 = 0
        let ok = message.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &outLength, md, nil)
            }
        }
        precondition(ok == 1 && Int(outLength) == length, "EVP_Digest failed")
        return Array(out.prefix(length))
    }
}
