import STUN
import WireKit

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
