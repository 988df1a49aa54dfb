import ParleyCrypto

/// The digest algorithms of RFC 7616 §3.4 (HTTP) as RFC 8760 brings them to SIP: MD5 and SHA-256,
/// each with its `-sess` variant. SHA-512-256 is not offered (no SIP peer here speaks it).
public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable {
    case md5 = "MD5"
    case md5Session = "MD5-sess"
    case sha256 = "SHA-256"
    case sha256Session = "SHA-256-sess"

    /// The algorithm a challenge's `algorithm=` names (case-insensitive, RFC 7616 §3.3); absent means MD5.
    public init?(token: String?) {
        guard let token else {
            self = .md5
            return
        }
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == token.lowercased() }) else { return nil }
        self = match
    }

    public var isSession: Bool { self == .md5Session || self == .sha256Session }

    /// The algorithm without `-sess`: the one whose H(username:realm:password) a store keeps.
    public var base: DigestAlgorithm { self == .md5Session ? .md5 : self == .sha256Session ? .sha256 : self }

    /// H(data) as lowercase hex (RFC 7616 §3.4.1).
    public func hash(_ data: String) -> String {
        let bytes = Array(data.utf8)
        return Hex.encode(base == .md5 ? MD5.hash(bytes) : Digest.sha256(bytes))
    }

    /// H(username:realm:password): what a server stores instead of the password (RFC 7616 §3.4.2).
    public func userHash(username: String, realm: String, password: String) -> String {
        base.hash("\(username):\(realm):\(password)")
    }
}

/// The response computation of RFC 7616 §3.4.1–3.4.3 (qop `auth`, or none as RFC 2069 clients send).
public enum DigestResponse {
    /// `ha1` is H(username:realm:password) for `algorithm.base`; `qop` nil means the RFC 2069 form
    /// (then `nc` and `cnonce` are ignored).
    public static func compute(algorithm: DigestAlgorithm, ha1: String, nonce: String, cnonce: String?, nc: String?,
                               qop: String?, method: String, uri: String) -> String {
        let sessionHA1 = algorithm.isSession ? algorithm.hash("\(ha1):\(nonce):\(cnonce ?? "")") : ha1
        let ha2 = algorithm.hash("\(method):\(uri)")
        guard let qop else { return algorithm.hash("\(sessionHA1):\(nonce):\(ha2)") }
        return algorithm.hash("\(sessionHA1):\(nonce):\(nc ?? ""):\(cnonce ?? ""):\(qop):\(ha2)")
    }
}
