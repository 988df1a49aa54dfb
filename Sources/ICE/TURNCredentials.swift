import STUN

/// Time-limited TURN credentials for coturn's `use-auth-secret` (the "TURN REST API" draft,
/// draft-uberti-behave-turn-rest-00): the username is `"<expiry unix time>:<user>"` and the
/// password base64(HMAC-SHA1(shared secret, username)).
public enum TURNRESTCredentials {
    /// - Parameters:
    ///   - user: an opaque user id; may be empty (the username is then just the expiry).
    ///   - secret: coturn's `static-auth-secret`.
    ///   - expiresAt: Unix time in seconds after which coturn rejects the credentials.
    ///   - hmac: HMAC-SHA1, e.g. `{ HMAC.sha1(key: $0, message: $1) }` from ParleyCrypto.
    public static func make(user: String, secret: String, expiresAt: UInt64,
                            hmac: HMACFunction) -> (username: String, password: String) {
        let username = user.isEmpty ? String(expiresAt) : "\(expiresAt):\(user)"
        let mac = Array(username.utf8).withUnsafeBytes { hmac(Array(secret.utf8), $0) }
        return (username, Base64.encode(mac))
    }

    /// A `TURNServer` with REST credentials.
    public static func server(_ address: ICETransportAddress, user: String, secret: String, expiresAt: UInt64,
                              hmac: HMACFunction) -> TURNServer {
        let (username, password) = make(user: user, secret: secret, expiresAt: expiresAt, hmac: hmac)
        return TURNServer(address: address, username: username, password: password)
    }
}

/// Standard base64 with padding (RFC 4648 §4), just enough for REST credentials.
enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var word = UInt32(bytes[i]) << 16
            if n > 1 { word |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { word |= UInt32(bytes[i + 2]) }
            for j in 0..<4 {
                out.append(j <= n ? alphabet[Int((word >> UInt32(18 - 6 * j)) & 0x3F)] : UInt8(ascii: "="))
            }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
