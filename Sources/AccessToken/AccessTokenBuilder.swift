import JSONWire
import ParleyCore
import ParleyCrypto

/// Mints HS256 access tokens in Twilio's format.
///
/// Header: `{"alg":"HS256","cty":"twilio-fpa;v=1","twr":region,"typ":"JWT"}` (`twr` only with a
/// region; members sorted as PyJWT writes them). Claims: `jti` = `<API key SID>-<now>`, `grants`,
/// `iss` = API key SID, `sub` = account SID, `iat` = `nbf` = now, `exp` = now + ttl. The `twilio`
/// Python library writes the same claims except `iat`.
public struct AccessTokenBuilder: Sendable {
    /// The longest lifetime a token may have (Twilio's limit; longer tokens fail with 20157).
    public static let maxTTL: Int64 = 24 * 3600

    public var accountSid: String
    public var apiKeySid: String
    /// The API key secret; its UTF-8 bytes are the HMAC key.
    public var apiSecret: String
    public var identity: String
    /// Lifetime in seconds, 1…`maxTTL`.
    public var ttl: Int64 = 3600
    public var grants: [AccessTokenGrant] = []
    /// Twilio region for the `twr` header (e.g. `au1`).
    public var region: String?

    public init(accountSid: String, apiKeySid: String, apiSecret: String, identity: String) {
        self.accountSid = accountSid
        self.apiKeySid = apiKeySid
        self.apiSecret = apiSecret
        self.identity = identity
    }

    /// The header this builder writes.
    public var header: JSONObject {
        var h: JSONObject = ["alg": .string("HS256"), "cty": .string("twilio-fpa;v=1")]
        if let region, !region.isEmpty { h["twr"] = .string(region) }
        h["typ"] = .string("JWT")
        return h
    }

    /// The claims this builder writes at time `now`.
    public func claims(now: Int64) -> JSONObject {
        var grantsJSON = JSONObject()
        for grant in grants { grantsJSON[grant.key] = .object(grant.json) }
        grantsJSON["identity"] = .string(identity)
        return [
            "jti": .string("\(apiKeySid)-\(now)"),
            "grants": .object(grantsJSON),
            "iss": .string(apiKeySid),
            "sub": .string(accountSid),
            "iat": .integer(now),
            "nbf": .integer(now),
            "exp": .integer(now + ttl),
        ]
    }

    /// Signs and returns the compact JWT.
    ///
    /// Throws 20106 for an identity that breaks `Identity`'s rule or a repeated grant type, and
    /// 20157 for a ttl outside 1…`maxTTL`.
    public func mint(now: Int64 = WallClock.now()) throws(ParleyError) -> String {
        try Identity.validate(identity)
        guard ttl > 0, ttl <= Self.maxTTL else {
            throw ParleyError(.expirationTimeExceedsMaxTimeAllowed, reason: "ttl must be 1…\(Self.maxTTL) seconds")
        }
        guard Set(grants.map(\.key)).count == grants.count else {
            throw ParleyError(.accessTokenGrantsInvalid, reason: "each grant type may appear once")
        }
        return JWS.signHS256(header: header, claims: claims(now: now), key: Array(apiSecret.utf8))
    }

    /// One-call minting; see `mint(now:)`.
    public static func mint(accountSid: String, apiKeySid: String, apiSecret: String, identity: String,
                            ttl: Int64 = 3600, grants: [AccessTokenGrant], region: String? = nil,
                            now: Int64 = WallClock.now()) throws(ParleyError) -> String {
        var builder = AccessTokenBuilder(accountSid: accountSid, apiKeySid: apiKeySid, apiSecret: apiSecret,
                                         identity: identity)
        builder.ttl = ttl
        builder.grants = grants
        builder.region = region
        return try builder.mint(now: now)
    }
}
