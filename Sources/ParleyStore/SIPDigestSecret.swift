import ParleyCrypto

/// What a SIP digest server keeps instead of a password (RFC 7616 §3.4.2): H(username:realm:password)
/// with MD5 and with SHA-256, for one realm. A registrar verifies a response of either algorithm
/// with it; the password itself is never stored, so a credential can be checked only in the realm
/// it was created for (changing the realm needs new passwords).
///
/// `description` leaves the hashes out, so a secret can be logged safely.
public struct SIPDigestSecret: Sendable, Equatable, CustomStringConvertible {
    /// The realm the hashes were computed for.
    public let realm: String
    /// MD5(username:realm:password), 32 lowercase hex digits (`algorithm=MD5`).
    public let ha1MD5: String
    /// SHA-256(username:realm:password), 64 lowercase hex digits (`algorithm=SHA-256`, RFC 7616 §3.4.2).
    public let ha1SHA256: String

    /// The realm Parley challenges with unless configured otherwise; REST-created credentials are
    /// hashed for it.
    public static let defaultRealm = "parley"

    public init(realm: String, ha1MD5: String, ha1SHA256: String) {
        self.realm = realm
        self.ha1MD5 = ha1MD5
        self.ha1SHA256 = ha1SHA256
    }

    /// The hashes of `password` for `username` in `realm`.
    public init(username: String, realm: String, password: String) {
        let a1 = Array("\(username):\(realm):\(password)".utf8)
        self.init(realm: realm, ha1MD5: Hex.encode(MD5.hash(a1)), ha1SHA256: Hex.encode(Digest.sha256(a1)))
    }

    /// Whether `password` is the one these hashes were made from (constant time).
    public func matches(username: String, password: String) -> Bool {
        let other = SIPDigestSecret(username: username, realm: realm, password: password)
        return ConstantTime.equals(Array(ha1SHA256.utf8), Array(other.ha1SHA256.utf8))
    }

    public var description: String { "SIPDigestSecret(realm \"\(realm)\")" }
}
