import ParleyCore

/// The session keys one direction of an SRTP session uses, derived from its master key and salt
/// by the AES-CM PRF (RFC 3711 §4.3.1, §4.3.3) with a key derivation rate of 0, so once per
/// session. AES-GCM sessions derive theirs the same way with a 12-byte salt (RFC 7714 §11).
struct SRTPSessionKeys {
    var rtpCipherKey: [UInt8]
    var rtpAuthenticationKey: [UInt8]
    var rtpSalt: [UInt8]
    var rtcpCipherKey: [UInt8]
    var rtcpAuthenticationKey: [UInt8]
    var rtcpSalt: [UInt8]

    /// Labels of RFC 3711 §4.3.2.
    private enum Label: UInt8 {
        case rtpCipher = 0, rtpAuthentication, rtpSalt, rtcpCipher, rtcpAuthentication, rtcpSalt
    }

    init(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8]) throws(ParleyError) {
        let prf = try AESCounterMode(key: masterKey)
        func derive(_ label: Label, _ length: Int) throws(ParleyError) -> [UInt8] {
            // x = (label ‖ r) XOR master salt, r = 0 (§4.3.1); the PRF input block is x · 2^16.
            // A 12-byte GCM salt is used as its first 12 bytes, zero-padded (as libsrtp does).
            var iv = [UInt8](repeating: 0, count: 16)
            for (i, byte) in masterSalt.prefix(14).enumerated() { iv[i] = byte }
            iv[7] ^= label.rawValue
            var output = [UInt8](repeating: 0, count: length)
            let ok = iv.withUnsafeBufferPointer { iv in
                output.withUnsafeMutableBufferPointer { prf.apply(iv: iv.baseAddress!, to: $0.baseAddress!, count: length) }
            }
            guard ok else { throw ParleyError(.mediaConnection, reason: "SRTP key derivation failed") }
            return output
        }
        let saltLength = profile.saltLength
        let authenticationLength = profile == .aes128CMHMACSHA1_80 ? HMACSHA1.digestLength : 0
        rtpCipherKey = try derive(.rtpCipher, profile.keyLength)
        rtpAuthenticationKey = try derive(.rtpAuthentication, authenticationLength)
        rtpSalt = try derive(.rtpSalt, saltLength)
        rtcpCipherKey = try derive(.rtcpCipher, profile.keyLength)
        rtcpAuthenticationKey = try derive(.rtcpAuthentication, authenticationLength)
        rtcpSalt = try derive(.rtcpSalt, saltLength)
    }

    /// Overwrites every key (best effort: copies made by the ciphers are theirs to clear).
    mutating func erase() {
        for keyPath in [\Self.rtpCipherKey, \.rtpAuthenticationKey, \.rtpSalt, \.rtcpCipherKey, \.rtcpAuthenticationKey,
                        \.rtcpSalt] as [WritableKeyPath<Self, [UInt8]>] {
            for i in self[keyPath: keyPath].indices { self[keyPath: keyPath][i] = 0 }
        }
    }
}
