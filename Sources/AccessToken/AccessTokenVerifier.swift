import JSONWire
import ParleyCore
import ParleyCrypto

/// Finds the secret of an API key. Implemented by the account store (through an adapter) or by tests.
public protocol APIKeyResolver: Sendable {
    /// The account that owns key `sid` and the key's secret (UTF-8 bytes of the secret string), or
    /// nil if the key is unknown or revoked.
    func secret(forKey sid: String) -> (accountSid: String, secret: [UInt8])?
}

/// A token that passed every check.
public struct VerifiedToken: Sendable, Equatable {
    public let accountSid: String
    public let apiKeySid: String
    public let identity: String
    public let voice: VoiceGrant?
    public let video: VideoGrant?
    /// The `twr` header, if any.
    public let region: String?
    public let issuedAt: Int64?
    public let notBefore: Int64?
    public let expires: Int64
    public let tokenId: String?
    /// The header and claims exactly as received.
    public let header: JSONObject
    public let claims: JSONObject
}

/// Verifies Twilio-format HS256 access tokens strictly.
///
/// Checks, in order, each failing with the seed's code:
/// 1. structure: three base64url segments, JSON objects, at most 16 KB → 20101;
/// 2. header: `alg` exactly `HS256` (so `none` fails), `typ` `JWT`, `cty` `twilio-fpa;v=1`, `twr` a
///    string if present, no `crit` → 20102;
/// 3. `iss` names a key the resolver knows → 20103;
/// 4. HMAC-SHA256 signature, compared in constant time → 20101;
/// 5. claims: see `AccessTokenClaims.init(json:)`; `sub` must be the key's account → 20103; an
///    identity is required (20106);
/// 6. lifetime `exp − (nbf ?? iat)` at most `maxLifetime` → 20157;
/// 7. time, with `leeway` either side: `now > exp + leeway` → 20104;
///    `now + leeway < nbf` (or `< iat`) → 20105.
public struct AccessTokenVerifier: Sendable {
    public let resolver: any APIKeyResolver
    /// Allowed clock skew, seconds.
    public let leeway: Int64
    /// Longest allowed lifetime, seconds.
    public let maxLifetime: Int64
    /// Seconds since the epoch.
    public let clock: @Sendable () -> Int64

    public init(resolver: any APIKeyResolver, leeway: Int64 = 60, maxLifetime: Int64 = AccessTokenBuilder.maxTTL,
                clock: @escaping @Sendable () -> Int64 = WallClock.now) {
        self.resolver = resolver
        self.leeway = leeway
        self.maxLifetime = maxLifetime
        self.clock = clock
    }

    /// Verifies `jwt` and returns its contents, or throws a `ParleyError` with a 201xx code.
    public func verify(_ jwt: String) throws(ParleyError) -> VerifiedToken {
        let parsed = try JWT.parse(jwt)
        try Self.checkHeader(parsed.header)

        guard let keySid = parsed.claims["iss"]?.stringValue else {
            throw ParleyError(.accessTokenIssuerInvalid, reason: "iss is missing or not a string")
        }
        guard let key = resolver.secret(forKey: keySid) else {
            throw ParleyError(.accessTokenIssuerInvalid, reason: "unknown or revoked API key")
        }
        guard JWS.verifyHS256(signingInput: parsed.signingInput, signature: parsed.signature, key: key.secret) else {
            throw ParleyError(.accessTokenInvalid, reason: "signature does not match")
        }

        let claims = try AccessTokenClaims(json: parsed.claims)
        guard claims.subject == key.accountSid else {
            throw ParleyError(.accessTokenIssuerInvalid, reason: "sub is not the account that owns the API key")
        }
        guard let identity = claims.identity else {
            throw ParleyError(.accessTokenGrantsInvalid, reason: "grants.identity is required")
        }
        try checkTimes(claims)

        return VerifiedToken(accountSid: claims.subject, apiKeySid: claims.issuer, identity: identity,
                             voice: claims.voice, video: claims.video, region: parsed.header.twr,
                             issuedAt: claims.issuedAt, notBefore: claims.notBefore, expires: claims.expires,
                             tokenId: claims.tokenId, header: parsed.header.json, claims: parsed.claims)
    }

    /// Header policy (RFC 7515 §4.1); pure.
    public static func checkHeader(_ header: JWTHeader) throws(ParleyError) {
        func bad(_ reason: String) -> ParleyError { ParleyError(.accessTokenHeaderInvalid, reason: reason) }
        guard header.alg == "HS256" else { throw bad("alg must be HS256") }
        guard header.typ == "JWT" else { throw bad("typ must be JWT") }
        guard header.cty == "twilio-fpa;v=1" else { throw bad("cty must be twilio-fpa;v=1") }
        if let twr = header.json["twr"], twr.stringValue == nil { throw bad("twr must be a string") }
        // RFC 7515 §4.1.11: a recipient that does not understand a critical extension must reject.
        guard header.json["crit"] == nil else { throw bad("crit extensions are not supported") }
    }

    func checkTimes(_ claims: AccessTokenClaims) throws(ParleyError) {
        let now = clock()
        let start = claims.notBefore ?? claims.issuedAt ?? now
        let (lifetime, overflow) = claims.expires.subtractingReportingOverflow(start)
        guard !overflow, lifetime > 0 else {
            throw ParleyError(.accessTokenExpired, reason: "exp is not after nbf/iat")
        }
        guard lifetime <= maxLifetime else {
            throw ParleyError(.expirationTimeExceedsMaxTimeAllowed,
                              reason: "lifetime \(lifetime) s exceeds \(maxLifetime) s")
        }
        guard now <= claims.expires &+ leeway else {
            throw ParleyError(.accessTokenExpired, reason: "expired \(now - claims.expires) s ago")
        }
        if let nbf = claims.notBefore, now &+ leeway < nbf {
            throw ParleyError(.accessTokenNotYetValid, reason: "valid from \(nbf), now is \(now)")
        }
        if let iat = claims.issuedAt, now &+ leeway < iat {
            throw ParleyError(.accessTokenNotYetValid, reason: "issued in the future (iat \(iat), now \(now))")
        }
    }
}
