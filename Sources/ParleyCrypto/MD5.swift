import COpenSSL

/// MD5 (RFC 1321): 16 bytes, computed by OpenSSL's EVP interface. Broken for collision resistance;
/// only for protocols that require it, such as the STUN/TURN long-term credential key
/// (RFC 8489 §9.2.2) and SIP digest authentication.
public enum MD5 {
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var outLength: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &outLength, EVP_md5(), nil)
            }
        }
        precondition(ok == 1 && outLength == 16, "EVP_Digest(MD5) failed")
        return Array(out.prefix(16))
    }
}
