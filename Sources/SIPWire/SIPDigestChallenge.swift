/// A Digest challenge from WWW-Authenticate or Proxy-Authenticate (RFC 3261 §20.27, §22.4;
/// RFC 7616 §3.3; RFC 8760 adds SHA-256 and SHA-512/256 algorithms to SIP).
public struct SIPDigestChallenge: SIPDigestHeaderValue {
    public var realm: String
    public var nonce: String
    public var opaque: String?
    /// Whether the previous credentials failed only because the nonce went stale (RFC 7616 §3.3).
    public var stale: Bool
    /// `MD5`, `MD5-sess`, `SHA-256`, `SHA-256-sess`, `SHA-512-256`, …; nil means MD5.
    public var algorithm: String?
    /// The offered qop values (`auth`, `auth-int`); empty when the challenge has no `qop`
    /// (RFC 2069 compatibility, RFC 3261 §22.4).
    public var qop: [String]
    public var domain: String?
    /// RFC 7616 §3.4.4: the server supports hashed usernames.
    public var userhash: Bool
    /// `charset` (RFC 7616 §4: only `UTF-8`).
    public var charset: String?
    /// Other parameters, as received.
    public var otherParameters: [SIPParameter]

    public init(realm: String, nonce: String, opaque: String? = nil, stale: Bool = false, algorithm: String? = nil,
                qop: [String] = ["auth"], domain: String? = nil, userhash: Bool = false, charset: String? = nil,
                otherParameters: [SIPParameter] = []) {
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.stale = stale
        self.algorithm = algorithm
        self.qop = qop
        self.domain = domain
        self.userhash = userhash
        self.charset = charset
        self.otherParameters = otherParameters
    }

    /// Reads the Digest parameters of an authentication header; realm and nonce are required
    /// (RFC 7616 §3.3).
    public init(_ auth: SIPAuthHeader, header: String) throws(SIPParseError) {
        var parameters = try SIPDigestParameters.parameters(of: auth, header: header)
        guard let realm = SIPDigestParameters.take("realm", from: &parameters),
              let nonce = SIPDigestParameters.take("nonce", from: &parameters) else { throw .invalidHeader(name: header) }
        self.realm = realm
        self.nonce = nonce
        opaque = SIPDigestParameters.take("opaque", from: &parameters)
        stale = SIPDigestParameters.flag(SIPDigestParameters.take("stale", from: &parameters))
        algorithm = SIPDigestParameters.take("algorithm", from: &parameters)
        qop = SIPDigestParameters.take("qop", from: &parameters).map {
            $0.split(separator: ",").map { SIPHeaders.trimmed($0.utf8) }.filter { !$0.isEmpty }
        } ?? []
        domain = SIPDigestParameters.take("domain", from: &parameters)
        userhash = SIPDigestParameters.flag(SIPDigestParameters.take("userhash", from: &parameters))
        charset = SIPDigestParameters.take("charset", from: &parameters)
        otherParameters = parameters
    }

    /// `Digest realm="…", nonce="…", …` with RFC 7616 §3.3's quoting (algorithm and stale as tokens).
    public var headerValue: String {
        let typed: [SIPParameter?] = [
            SIPDigestParameters.quoted("realm", realm), SIPDigestParameters.quoted("domain", domain),
            SIPDigestParameters.quoted("nonce", nonce), SIPDigestParameters.quoted("opaque", opaque),
            SIPDigestParameters.token("algorithm", algorithm),
            SIPDigestParameters.quoted("qop", qop.isEmpty ? nil : qop.joined(separator: ",")),
            SIPDigestParameters.token("stale", stale ? "true" : nil),
            SIPDigestParameters.token("userhash", userhash ? "true" : nil),
            SIPDigestParameters.token("charset", charset),
        ]
        return SIPAuthHeader(scheme: "Digest", parameters: typed.compactMap { $0 } + otherParameters).headerValue
    }
}
