import ParleyStore
import SIP

/// Who may register, as the registrar asks it (a consumer-defined interface: the credential store
/// behind the Plivo Endpoint and Twilio SIP Credential REST APIs implements it).
public protocol SIPCredentialDirectory: Sendable {
    /// The credentials that may stand for `username` at `domain` (the Request-URI's or To's host):
    /// none for an unknown user, several when credential lists overlap (each is tried).
    func credentials(username: String, domain: String) -> [SIPCredential]
}

/// A SIP user: its account, and H(username:realm:password) per digest algorithm (the password
/// itself is not needed, RFC 7616 §3.4.2).
public struct SIPCredential: Sendable, Hashable {
    public var accountSid: String
    public var username: String
    public var userHashes: [DigestAlgorithm: String]

    public init(accountSid: String, username: String, userHashes: [DigestAlgorithm: String]) {
        self.accountSid = accountSid
        self.username = username
        self.userHashes = userHashes
    }

    /// A credential from the hashes a store keeps (`SIPDigestSecret`: MD5 and SHA-256).
    public init(accountSid: String, username: String, secret: SIPDigestSecret) {
        self.init(accountSid: accountSid, username: username, userHashes: [.md5: secret.ha1MD5, .sha256: secret.ha1SHA256])
    }

    /// A credential from a password, hashed for `realm` as the store hashes them.
    public init(accountSid: String, username: String, password: String, realm: String) {
        self.init(accountSid: accountSid, username: username, secret: SIPDigestSecret(username: username, realm: realm, password: password))
    }
}

/// A fixed set of credentials (tests).
public struct StaticSIPCredentials: SIPCredentialDirectory {
    private let byUsername: [String: SIPCredential]

    public init(_ credentials: [SIPCredential]) {
        byUsername = Dictionary(credentials.map { ($0.username, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func credentials(username: String, domain: String) -> [SIPCredential] { byUsername[username].map { [$0] } ?? [] }
}
