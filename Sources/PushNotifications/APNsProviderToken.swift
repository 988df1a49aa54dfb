import AccessToken
import JSONWire
import ParleyCrypto

/// The APNs provider authentication token: an ES256 JWT with header `{"alg":"ES256","kid":…}` and
/// claims `{"iss":<team>,"iat":<now>}`, reused until `refreshInterval` seconds old. A value type
/// driven by the time passed in.
public struct APNsProviderToken: Sendable {
    public let keyID: String
    public let teamID: String
    public let refreshInterval: Int64
    private let key: P256SigningKey
    private var current: (jwt: String, issuedAt: Int64)?

    public init(key: P256SigningKey, keyID: String, teamID: String, refreshInterval: Int64 = 50 * 60) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.refreshInterval = refreshInterval
    }

    /// When the current token was issued (nil before the first).
    public var issuedAt: Int64? { current?.issuedAt }

    /// The token to send at `now` (Unix seconds): the cached one while younger than
    /// `refreshInterval`, else a freshly signed one.
    public mutating func token(now: Int64) throws(PushError) -> String {
        if let current, now >= current.issuedAt, now - current.issuedAt < refreshInterval { return current.jwt }
        let jwt = try Self.sign(key: key, keyID: keyID, teamID: teamID, issuedAt: now)
        current = (jwt, now)
        return jwt
    }

    /// Drops the cached token (after APNs answered `ExpiredProviderToken`).
    public mutating func invalidate() { current = nil }

    /// Signs one provider token (RFC 7515 compact JWS with ES256, RFC 7518 §3.4).
    public static func sign(key: P256SigningKey, keyID: String, teamID: String, issuedAt: Int64) throws(PushError) -> String {
        let header: JSONObject = ["alg": .string("ES256"), "kid": .string(keyID)]
        let claims: JSONObject = ["iss": .string(teamID), "iat": .integer(issuedAt)]
        let input = JWS.signingInput(header: header, claims: claims)
        do {
            return input + "." + Base64URL.encode(try key.signature(for: Array(input.utf8)))
        } catch {
            throw .configuration("signing the provider token failed: \(error.message)")
        }
    }
}
