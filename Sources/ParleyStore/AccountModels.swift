import ParleyCrypto

/// A Parley account: `AC` followed by 32 lowercase hex digits.
///
/// `description` leaves the auth token out, so an account can be logged safely.
public struct Account: Sendable, Equatable, CustomStringConvertible {
    public let sid: String
    public let friendlyName: String
    /// Seconds since the epoch.
    public let createdAt: Int64
    /// The account's auth token (32 lowercase hex digits): the REST API accepts it as the Basic auth
    /// password with the account SID as user name, and webhooks are signed with it (`X-Twilio-Signature`).
    public let authToken: String
    /// The account's Plivo-style auth ID (`MA` + 18 uppercase hex digits): the Plivo-shaped API
    /// (`/v1/Account/{auth_id}/…`) takes it as the Basic auth user name, with the auth token.
    public let authID: String

    public init(sid: String, friendlyName: String, createdAt: Int64, authToken: String, authID: String) {
        self.sid = sid
        self.friendlyName = friendlyName
        self.createdAt = createdAt
        self.authToken = authToken
        self.authID = authID
    }

    public var description: String { "Account(\(sid), \"\(friendlyName)\")" }
}

/// An API key (`SK` + 32 hex) and its secret, used to sign access tokens.
///
/// `description` leaves the secret out, so a key can be logged safely.
public struct APIKey: Sendable, Equatable, CustomStringConvertible {
    public let sid: String
    public let accountSid: String
    public let friendlyName: String
    /// The signing secret (32 alphanumeric characters); its UTF-8 bytes are the HMAC key.
    public let secret: String
    /// Seconds since the epoch.
    public let createdAt: Int64
    public let revoked: Bool

    public init(sid: String, accountSid: String, friendlyName: String, secret: String, createdAt: Int64,
                revoked: Bool) {
        self.sid = sid
        self.accountSid = accountSid
        self.friendlyName = friendlyName
        self.secret = secret
        self.createdAt = createdAt
        self.revoked = revoked
    }

    public var description: String {
        "APIKey(\(sid), account \(accountSid), \"\(friendlyName)\"\(revoked ? ", revoked" : ""))"
    }
}

/// What `ensureDefaultAccount()` returns.
public struct DefaultCredentials: Sendable, Equatable {
    public let account: Account
    public let apiKey: APIKey
    /// True if this call created the account or the key.
    public let created: Bool

    public init(account: Account, apiKey: APIKey, created: Bool) {
        self.account = account
        self.apiKey = apiKey
        self.created = created
    }
}

/// Twilio-style resource identifiers: a two-letter prefix and 32 lowercase hex digits.
public enum SID {
    /// A new random SID with `prefix` (`AC`, `SK`, …): 128 random bits.
    public static func make(_ prefix: String) -> String {
        prefix + SecureRandom.hex(byteCount: 16)
    }

    /// True if `sid` is `prefix` followed by exactly 32 lowercase hex digits.
    public static func isValid(_ sid: String, prefix: String) -> Bool {
        guard sid.hasPrefix(prefix) else { return false }
        let rest = sid.utf8.dropFirst(prefix.utf8.count)
        return rest.count == 32 && rest.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// A new API key secret: 32 characters from `[A-Za-z0-9]`, about 190 bits.
    public static func makeSecret() -> String {
        SecureRandom.alphanumeric(32)
    }

    /// A new Plivo-style auth ID: `MA` and 18 uppercase hex digits (72 random bits), the 20
    /// characters the `plivo` library's `is_valid_mainaccount` requires.
    public static func makeAuthID() -> String {
        "MA" + SecureRandom.hex(byteCount: 9).uppercased()
    }

    /// True for `MA` followed by 18 uppercase hex digits.
    public static func isValidAuthID(_ id: String) -> Bool {
        id.hasPrefix("MA") && id.utf8.count == 20
            && id.utf8.dropFirst(2).allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) }
    }

    /// A new account auth token: 32 lowercase hex digits (128 random bits), as Twilio's.
    public static func makeAuthToken() -> String {
        SecureRandom.hex(byteCount: 16)
    }
}
