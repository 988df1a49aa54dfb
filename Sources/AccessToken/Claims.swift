import JSONWire
import ParleyCore

/// The claims of a Twilio-format access token, typed. Pure: decoding needs no key and no clock.
///
/// Twilio's Python library writes `nbf` but no `iat`; its Node library (via `jsonwebtoken`) writes
/// `iat`. Both are optional here, `exp` is required.
public struct AccessTokenClaims: Sendable, Equatable {
    /// Most members allowed in `grants` (identity included). Bounds the work of hostile tokens.
    public static let maxGrantMembers = 16

    /// `jti` (RFC 7519 §4.1.7), `<API key SID>-<issued at>` in Twilio's format.
    public var tokenId: String?
    /// `iss`: the API key SID.
    public var issuer: String
    /// `sub`: the account SID.
    public var subject: String
    /// `iat`, seconds since the epoch.
    public var issuedAt: Int64?
    /// `nbf`, seconds since the epoch.
    public var notBefore: Int64?
    /// `exp`, seconds since the epoch.
    public var expires: Int64
    /// `grants.identity`; validated against `Identity`'s rule when present.
    public var identity: String?
    /// `grants.voice`.
    public var voice: VoiceGrant?
    /// `grants.video`.
    public var video: VideoGrant?
    /// All of `grants`, including grant types Parley does not interpret (`chat`, `data_sync`, …).
    public var grants: JSONObject

    /// Decodes a claims set. Errors: `iss`/`sub` missing or not strings → 20103; `exp` missing or not
    /// a number → 20104; `nbf` not a number → 20105; `iat`/`jti` of the wrong type → 20101;
    /// `grants` missing, not an object, over `maxGrantMembers`, a grant of the wrong shape, or an
    /// identity breaking the rule → 20106.
    public init(json: JSONObject) throws(ParleyError) {
        guard let iss = json["iss"]?.stringValue, !iss.isEmpty else {
            throw ParleyError(.accessTokenIssuerInvalid, reason: "iss is missing or not a string")
        }
        guard let sub = json["sub"]?.stringValue, !sub.isEmpty else {
            throw ParleyError(.accessTokenIssuerInvalid, reason: "sub is missing or not a string")
        }
        issuer = iss
        subject = sub
        guard let exp = json["exp"]?.numericDate else {
            throw ParleyError(.accessTokenExpired, reason: "exp is missing or not a number")
        }
        expires = exp
        if let nbf = json["nbf"] {
            guard let n = nbf.numericDate else { throw ParleyError(.accessTokenNotYetValid, reason: "nbf is not a number") }
            notBefore = n
        }
        if let iat = json["iat"] {
            guard let n = iat.numericDate else { throw ParleyError(.accessTokenInvalid, reason: "iat is not a number") }
            issuedAt = n
        }
        if let jti = json["jti"] {
            guard let s = jti.stringValue else { throw ParleyError(.accessTokenInvalid, reason: "jti is not a string") }
            tokenId = s
        }

        guard let grantsValue = json["grants"] else { throw Self.badGrants("grants is missing") }
        guard let grants = grantsValue.objectValue else { throw Self.badGrants("grants is not an object") }
        guard grants.count <= Self.maxGrantMembers else {
            throw Self.badGrants("grants has \(grants.count) members; at most \(Self.maxGrantMembers) are allowed")
        }
        self.grants = grants
        if let id = grants["identity"] {
            guard let s = id.stringValue else { throw Self.badGrants("identity is not a string") }
            try Identity.validate(s)
            identity = s
        }
        if let v = grants["voice"] {
            guard let object = v.objectValue else { throw Self.badGrants("voice grant is not an object") }
            voice = try VoiceGrant(json: object)
        }
        if let v = grants["video"] {
            guard let object = v.objectValue else { throw Self.badGrants("video grant is not an object") }
            video = try VideoGrant(json: object)
        }
    }

    static func badGrants(_ reason: String) -> ParleyError { ParleyError(.accessTokenGrantsInvalid, reason: reason) }
}
