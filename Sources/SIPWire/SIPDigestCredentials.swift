/// Digest credentials from Authorization or Proxy-Authorization (RFC 3261 §20.7, §22.4;
/// RFC 7616 §3.4). The response hash is checked by the SIP stack, not here.
public struct SIPDigestCredentials: SIPDigestHeaderValue {
    /// The username, or its hash when ``userhash`` is set (RFC 7616 §3.4.4); decoded from
    /// `username*` (RFC 8187 `UTF-8''…`) when the client sent that form.
    public var username: String
    public var realm: String
    public var nonce: String
    /// The `uri` (digest-uri) as sent.
    public var uri: String
    /// The request digest, hex.
    public var response: String
    public var algorithm: String?
    public var cnonce: String?
    public var opaque: String?
    /// The chosen qop (`auth`, `auth-int`).
    public var qop: String?
    /// `nc`, eight hex digits as sent (e.g. `00000001`).
    public var nonceCount: String?
    public var userhash: Bool
    public var otherParameters: [SIPParameter]

    public init(username: String, realm: String, nonce: String, uri: String, response: String, algorithm: String? = nil,
                cnonce: String? = nil, opaque: String? = nil, qop: String? = nil, nonceCount: String? = nil,
                userhash: Bool = false, otherParameters: [SIPParameter] = []) {
        self.username = username
        self.realm = realm
        self.nonce = nonce
        self.uri = uri
        self.response = response
        self.algorithm = algorithm
        self.cnonce = cnonce
        self.opaque = opaque
        self.qop = qop
        self.nonceCount = nonceCount
        self.userhash = userhash
        self.otherParameters = otherParameters
    }

    /// Reads the Digest parameters of an authentication header; username (or `username*`),
    /// realm, nonce, uri and response are required (RFC 7616 §3.4).
    public init(_ auth: SIPAuthHeader, header: String) throws(SIPParseError) {
        var parameters = try SIPDigestParameters.parameters(of: auth, header: header)
        let plain = SIPDigestParameters.take("username", from: &parameters)
        let extended = SIPDigestParameters.take("username*", from: &parameters).flatMap(Self.extendedValue)
        guard let username = plain ?? extended,
              let realm = SIPDigestParameters.take("realm", from: &parameters),
              let nonce = SIPDigestParameters.take("nonce", from: &parameters),
              let uri = SIPDigestParameters.take("uri", from: &parameters),
              let response = SIPDigestParameters.take("response", from: &parameters) else { throw .invalidHeader(name: header) }
        self.username = username
        self.realm = realm
        self.nonce = nonce
        self.uri = uri
        self.response = response
        algorithm = SIPDigestParameters.take("algorithm", from: &parameters)
        cnonce = SIPDigestParameters.take("cnonce", from: &parameters)
        opaque = SIPDigestParameters.take("opaque", from: &parameters)
        qop = SIPDigestParameters.take("qop", from: &parameters)
        nonceCount = SIPDigestParameters.take("nc", from: &parameters)
        userhash = SIPDigestParameters.flag(SIPDigestParameters.take("userhash", from: &parameters))
        otherParameters = parameters
        // nc is 8LHEX (RFC 7616 §3.4); a qop needs cnonce and nc.
        if let nonceCount, nonceCount.utf8.count != 8 || !SIPCharacters.hex.containsAll(nonceCount) {
            throw .invalidHeader(name: header)
        }
        if qop != nil, cnonce == nil || nonceCount == nil { throw .invalidHeader(name: header) }
    }

    /// The nonce count as a number.
    public var nonceCountValue: UInt32? { nonceCount.flatMap { UInt32($0, radix: 16) } }

    /// `Digest username="…", realm="…", …` with RFC 7616 §3.4's quoting (algorithm, qop, nc,
    /// userhash as tokens).
    public var headerValue: String {
        let typed: [SIPParameter?] = [
            SIPDigestParameters.quoted("username", username), SIPDigestParameters.quoted("realm", realm),
            SIPDigestParameters.quoted("nonce", nonce), SIPDigestParameters.quoted("uri", uri),
            SIPDigestParameters.quoted("response", response), SIPDigestParameters.token("algorithm", algorithm),
            SIPDigestParameters.quoted("cnonce", cnonce), SIPDigestParameters.quoted("opaque", opaque),
            SIPDigestParameters.token("qop", qop), SIPDigestParameters.token("nc", nonceCount),
            SIPDigestParameters.token("userhash", userhash ? "true" : nil),
        ]
        return SIPAuthHeader(scheme: "Digest", parameters: typed.compactMap { $0 } + otherParameters).headerValue
    }

    /// An RFC 8187 ext-value `charset'language'pct-encoded` (only UTF-8 is accepted). A decoded
    /// CR or LF is refused: no quoted-string holds one, so the username could not be written back
    /// (fuzz/regressions/sip-digest/username-star-with-cr).
    static func extendedValue(_ text: String) -> String? {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, SIPCharacters.equalFold(parts[0], "UTF-8"),
              let value = SIPEscaping.decode(parts[2], allowed: SIPCharacters.Set("!#$&+-.^_`|~")),
              !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return nil }
        return value
    }
}
