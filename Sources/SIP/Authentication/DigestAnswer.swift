import ParleyCrypto
import SIPWire

/// The client side of digest authentication (RFC 3261 §22.2, RFC 7616 §3.4, RFC 8760): answers a
/// far end's 401 (`WWW-Authenticate` → `Authorization`) or 407 (`Proxy-Authenticate` →
/// `Proxy-Authorization`) with the credentials a `<Sip username password>` or a trunk gives.
public enum DigestAnswer {
    /// The header that carries the answer to `response`'s challenge, and the one that holds it.
    public static func headers(for statusCode: Int) -> (challenge: String, answer: String)? {
        switch statusCode {
        case 401: ("WWW-Authenticate", "Authorization")
        case 407: ("Proxy-Authenticate", "Proxy-Authorization")
        default: nil
        }
    }

    /// The challenge to answer among those `response` carries: the first whose algorithm we speak,
    /// SHA-256 preferred over MD5 (RFC 8760 §2.4: a UAC uses the first it supports, servers list
    /// their preferred first); `auth-int` alone is not supported. Nil when none is usable.
    public static func challenge(in response: SIPResponse) -> SIPDigestChallenge? {
        guard let names = headers(for: response.statusCode) else { return nil }
        let usable = response.headers.values(names.challenge).compactMap { value -> SIPDigestChallenge? in
            guard let auth = try? SIPAuthHeader(parsing: value, header: names.challenge), auth.isDigest,
                  let challenge = try? SIPDigestChallenge(auth, header: names.challenge),
                  DigestAlgorithm(token: challenge.algorithm) != nil,
                  challenge.qop.isEmpty || challenge.qop.contains(where: { $0.lowercased() == "auth" }) else { return nil }
            return challenge
        }
        return usable.first { DigestAlgorithm(token: $0.algorithm)?.base == .sha256 } ?? usable.first
    }

    /// The credentials answering `challenge` for a request `method` to `uri`: qop `auth` with a
    /// fresh `cnonce` and `nc` 00000001 when the challenge offers qop, RFC 2069's form otherwise;
    /// `opaque` echoed (RFC 7616 §3.4).
    public static func credentials(for challenge: SIPDigestChallenge, username: String, password: String,
                                   method: String, uri: String, cnonce: String = Hex.encode(SecureRandom.bytes(8))) -> SIPDigestCredentials? {
        guard let algorithm = DigestAlgorithm(token: challenge.algorithm) else { return nil }
        let qop: String? = challenge.qop.isEmpty ? nil : "auth"
        let nc = qop == nil ? nil : "00000001"
        let ha1 = algorithm.userHash(username: username, realm: challenge.realm, password: password)
        let response = DigestResponse.compute(algorithm: algorithm, ha1: ha1, nonce: challenge.nonce, cnonce: qop == nil ? nil : cnonce,
                                              nc: nc, qop: qop, method: method, uri: uri)
        return SIPDigestCredentials(username: username, realm: challenge.realm, nonce: challenge.nonce, uri: uri, response: response,
                                    algorithm: challenge.algorithm == nil ? nil : algorithm.rawValue,
                                    cnonce: qop == nil ? nil : cnonce, opaque: challenge.opaque, qop: qop, nonceCount: nc)
    }
}
