import ParleyCrypto

/// What a client's Authorization (or Proxy-Authorization) header says, as the SIP layer parsed it
/// (RFC 7616 §3.4, RFC 3261 §22.4).
public struct DigestCredentials: Sendable, Hashable {
    public var username: String
    public var realm: String
    public var nonce: String
    public var uri: String
    public var response: String
    public var algorithm: String?
    public var qop: String?
    public var nc: String?
    public var cnonce: String?

    public init(username: String, realm: String, nonce: String, uri: String, response: String,
                algorithm: String? = nil, qop: String? = nil, nc: String? = nil, cnonce: String? = nil) {
        (self.username, self.realm, self.nonce, self.uri, self.response) = (username, realm, nonce, uri, response)
        (self.algorithm, self.qop, self.nc, self.cnonce) = (algorithm, qop, nc, cnonce)
    }
}

/// Checks digest credentials against the H(username:realm:password) a store holds, with the same
/// work and the same answer for a user that does not exist as for a wrong password (RFC 3261 §26.3.2.4
/// leaves enumeration to the server: here an unknown user is checked against a random secret, so
/// neither the status nor the time tells them apart).
public struct DigestVerifier: Sendable {
    public enum Verdict: Sendable, Hashable {
        case authenticated
        /// The response was right for a nonce that expired: challenge again with `stale=true`.
        case stale
        /// Wrong password, unknown user, a nonce not ours, a realm or algorithm not offered.
        case rejected(Reason)
    }

    /// Why credentials were rejected: for counters and the server's debug log, never for the client.
    public enum Reason: String, Sendable, Hashable {
        case malformed, foreignNonce, wrongRealm, unsupportedAlgorithm, unsupportedQOP, wrongResponse
    }

    public let realm: String
    public let nonces: NonceIssuer
    /// The algorithms challenges offer; MD5 alone by default (Debian's sipp 3.6 and baresip 1.0
    /// fail on any SHA-256 challenge), SHA-256 first when enabled (RFC 8760 §2.4).
    public let algorithms: [DigestAlgorithm]
    private let decoyHA1: [DigestAlgorithm: String]

    public init(realm: String, nonces: NonceIssuer = NonceIssuer(), algorithms: [DigestAlgorithm] = [.md5]) {
        self.realm = realm
        self.nonces = nonces
        self.algorithms = algorithms.isEmpty ? [.md5] : algorithms
        let decoy = Hex.encode(SecureRandom.bytes(16))
        decoyHA1 = [.md5: DigestAlgorithm.md5.userHash(username: decoy, realm: realm, password: decoy),
                    .sha256: DigestAlgorithm.sha256.userHash(username: decoy, realm: realm, password: decoy)]
    }

    /// The challenges for a 401/407, one per offered algorithm (RFC 8760 §2.4: preferred first),
    /// each `WWW-Authenticate` value without the scheme's header name.
    public func challenges(now: Double, stale: Bool = false) -> [String] {
        let nonce = nonces.issue(realm: realm, now: now)
        return algorithms.map { algorithm in
            #"Digest realm="\#(realm)", nonce="\#(nonce)", algorithm=\#(algorithm.rawValue), qop="auth""#
                + (stale ? ", stale=true" : "")
        }
    }

    /// Checks `credentials` for a request with `method`; `storedHA1` is the user's
    /// H(username:realm:password) for each base algorithm, nil when no such user exists.
    public func verify(_ credentials: DigestCredentials, method: String, storedHA1: [DigestAlgorithm: String]?, now: Double) -> Verdict {
        guard let algorithm = DigestAlgorithm(token: credentials.algorithm), algorithms.contains(algorithm.base) else {
            return .rejected(.unsupportedAlgorithm)
        }
        guard credentials.qop == nil || credentials.qop?.lowercased() == "auth" else { return .rejected(.unsupportedQOP) }
        if credentials.qop != nil, credentials.nc == nil || credentials.cnonce == nil { return .rejected(.malformed) }
        // The expensive part runs for every request, known user or not.
        let ha1 = storedHA1?[algorithm.base] ?? decoyHA1[algorithm.base] ?? ""
        let expected = DigestResponse.compute(algorithm: algorithm, ha1: ha1, nonce: credentials.nonce, cnonce: credentials.cnonce,
                                              nc: credentials.nc, qop: credentials.qop, method: method, uri: credentials.uri)
        let matches = ConstantTime.equals(Array(expected.utf8), Array(credentials.response.lowercased().utf8))
        let nonce = nonces.check(credentials.nonce, realm: realm, now: now)
        guard credentials.realm == realm else { return .rejected(.wrongRealm) }
        guard nonce != .invalid else { return .rejected(.foreignNonce) }
        guard matches, storedHA1 != nil else { return .rejected(.wrongResponse) }
        return nonce == .stale ? .stale : .authenticated
    }
}
