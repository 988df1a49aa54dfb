import ParleyStore

/// What the SIP credential APIs need to know of the SIP service: the digest realm secrets are
/// hashed for (the registrar must challenge with the same one) and the host in endpoints' SIP URIs.
public struct SIPCredentialSettings: Sendable {
    /// The realm passwords are hashed for (`SIPDigestSecret.defaultRealm` unless configured).
    public var realm: String
    /// The host SIP users register at, shown in `sip_uri` (`sip:alice123456789012@HOST`).
    public var sipHost: String

    public init(realm: String = SIPDigestSecret.defaultRealm, sipHost: String = "localhost") {
        self.realm = realm
        self.sipHost = sipHost
    }
}
