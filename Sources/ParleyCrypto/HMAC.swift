import COpenSSL

/// One-shot HMAC (RFC 2104) over OpenSSL's `HMAC()`.
public enum HMAC {
    /// HMAC-SHA1 (RFC 2104): 20 bytes.
    public static func sha1(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        compute(EVP_sha1(), key: Array(key), message: Array(message), length: 20)
    }

    /// HMAC-SHA256 (RFC 4231): 32 bytes. The JWS `HS256` algorithm (RFC 7518 §3.2).
    public static func sha256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        compute(EVP_sha256(), key: Array(key), message: Array(message), length: 32)
    }

    private static func compute(_ md: OpaquePointer?, key: [UInt8], message: [UInt8], length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var outLength: UInt32 = 0
        // OpenSSL rejects a NULL key pointer even with length 0, so an empty key gets a dummy byte.
        let keyBytes = key.isEmpty ? [0] : key
        let result = keyBytes.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBufferPointer { o in
                    COpenSSL.HMAC(md, k.baseAddress, Int32(key.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                  m.count, o.baseAddress, &outLength)
                }
            }
        }
        precondition(result != nil && Int(outLength) == length, "HMAC failed")
        return Array(out.prefix(length))
    }
}
