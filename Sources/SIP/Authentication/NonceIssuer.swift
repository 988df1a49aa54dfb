import ParleyCrypto

/// Stateless digest nonces (RFC 7616 §3.3, §5.4): the time of issue and 8 random bytes, sealed
/// with an HMAC-SHA-256 over them and the realm under a per-server secret, base64url-encoded. A
/// nonce this server issued for this realm and younger than `lifetime` is fresh; an older one is
/// stale (the client retries with the new nonce of a `stale=true` challenge without asking its
/// user again); anything else is invalid. Nothing is stored per nonce.
public struct NonceIssuer: Sendable {
    public enum Status: Sendable, Hashable { case fresh, stale, invalid }

    public let lifetime: Double
    private let secret: [UInt8]
    private static let macLength = 16

    public init(secret: [UInt8] = SecureRandom.bytes(32), lifetime: Double = 300) {
        self.secret = secret
        self.lifetime = lifetime
    }

    /// A new nonce for `realm`, issued at `now` (seconds on any clock the checks share).
    public func issue(realm: String, now: Double) -> String {
        var body = Self.bigEndian(UInt64(clamping: Int64(max(0, now * 1000))))
        body += SecureRandom.bytes(8)
        return Base64URL.encode(body + mac(body, realm: realm))
    }

    public func check(_ nonce: String, realm: String, now: Double) -> Status {
        guard nonce.utf8.count <= 64, let bytes = Base64URL.decode(nonce), bytes.count == 16 + Self.macLength else { return .invalid }
        let body = Array(bytes.prefix(16))
        guard ConstantTime.equals(bytes.suffix(Self.macLength), mac(body, realm: realm)) else { return .invalid }
        let issued = Double(body.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) / 1000
        guard issued <= now + 1 else { return .invalid }  // from the future: not ours
        return now - issued <= lifetime ? .fresh : .stale
    }

    private func mac(_ body: [UInt8], realm: String) -> [UInt8] {
        Array(HMAC.sha256(key: secret, message: body + Array(realm.utf8)).prefix(Self.macLength))
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }
}
