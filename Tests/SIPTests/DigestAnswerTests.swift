import SIP
import SIPWire
import Testing

/// The client side of digest (`DigestAnswer`): which challenge a 401/407 is answered with, the
/// credentials it computes (RFC 7616 §3.9.1's example), and that our own verifier accepts them.
@Suite struct DigestAnswerTests {
    static func response(_ status: Int, _ challenges: [String]) -> SIPResponse {
        var headers = SIPHeaders()
        let name = status == 401 ? "WWW-Authenticate" : "Proxy-Authenticate"
        for challenge in challenges { headers.add(name, challenge) }
        return SIPResponse(statusCode: status, headers: headers)
    }

    /// RFC 7616 §3.9.1's request answered as a UA would (the example's cnonce), SHA-256 and MD5.
    @Test func rfc7616_3_9_1_credentialsMatchTheExample() throws {
        let nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
        for (algorithm, expected) in [("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
                                      ("MD5", "8ca523f5e9506fed4657c9700eebdbec")] {
            let challenge = SIPDigestChallenge(realm: "http-auth@example.org", nonce: nonce, opaque: "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS",
                                               algorithm: algorithm, qop: ["auth", "auth-int"])
            let credentials = try #require(DigestAnswer.credentials(for: challenge, username: "Mufasa", password: "Circle of Life",
                                                                    method: "GET", uri: "/dir/index.html",
                                                                    cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"))
            #expect(credentials.response == expected)
            #expect(credentials.qop == "auth" && credentials.nonceCount == "00000001")
            #expect(credentials.opaque == "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS" && credentials.algorithm == algorithm)
            // What goes on the wire parses back to the same credentials.
            let auth = try SIPAuthHeader(parsing: credentials.headerValue, header: "Authorization")
            #expect(try SIPDigestCredentials(auth, header: "Authorization") == credentials)
        }
    }

    /// SHA-256 is preferred when offered beside MD5 (RFC 8760 §2.4); unknown algorithms and
    /// `auth-int` alone are skipped; other statuses carry no challenge to answer.
    @Test func theChallengeChosenIsTheStrongestUsable() throws {
        let md5 = #"Digest realm="r", nonce="n1", algorithm=MD5, qop="auth""#
        let sha = #"Digest realm="r", nonce="n2", algorithm=SHA-256, qop="auth""#
        #expect(DigestAnswer.challenge(in: Self.response(401, [md5, sha]))?.nonce == "n2")
        #expect(DigestAnswer.challenge(in: Self.response(407, [md5]))?.nonce == "n1")
        #expect(DigestAnswer.challenge(in: Self.response(407, [#"Digest realm="r", nonce="n3", algorithm=SHA-512-256"#, md5]))?.nonce == "n1")
        #expect(DigestAnswer.challenge(in: Self.response(401, [#"Digest realm="r", nonce="n4", qop="auth-int""#])) == nil)
        #expect(DigestAnswer.challenge(in: Self.response(401, ["Basic realm=\"r\"", "Digest nonce=\"no-realm\""])) == nil)
        #expect(DigestAnswer.challenge(in: Self.response(403, [md5])) == nil)
        #expect(DigestAnswer.headers(for: 407)?.answer == "Proxy-Authorization")
        #expect(DigestAnswer.headers(for: 401)?.answer == "Authorization")
    }

    /// A challenge without qop is answered in RFC 2069's form (no cnonce, no nc).
    @Test func aChallengeWithoutQopGetsTheRFC2069Form() throws {
        let challenge = SIPDigestChallenge(realm: "testrealm@host.com", nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093", qop: [])
        let credentials = try #require(DigestAnswer.credentials(for: challenge, username: "u", password: "p", method: "INVITE",
                                                                uri: "sip:bob@host"))
        #expect(credentials.qop == nil && credentials.cnonce == nil && credentials.nonceCount == nil && credentials.algorithm == nil)
        let ha1 = DigestAlgorithm.md5.userHash(username: "u", realm: "testrealm@host.com", password: "p")
        #expect(credentials.response == DigestResponse.compute(algorithm: .md5, ha1: ha1, nonce: challenge.nonce, cnonce: nil, nc: nil,
                                                               qop: nil, method: "INVITE", uri: "sip:bob@host"))
    }

    /// Our registrar's verifier accepts what DigestAnswer computes for its challenges, MD5 and SHA-256.
    @Test func ourVerifierAcceptsTheAnswers() throws {
        for algorithms in [[DigestAlgorithm.md5], [.sha256, .md5]] {
            let verifier = DigestVerifier(realm: "parley.test", nonces: NonceIssuer(lifetime: 60), algorithms: algorithms)
            let challenge = try #require(DigestAnswer.challenge(in: Self.response(407, verifier.challenges(now: 10))))
            let answer = try #require(DigestAnswer.credentials(for: challenge, username: "alice", password: "s3cret", method: "INVITE",
                                                               uri: "sip:bob@parley.test"))
            let presented = DigestCredentials(username: answer.username, realm: answer.realm, nonce: answer.nonce, uri: answer.uri,
                                              response: answer.response, algorithm: answer.algorithm, qop: answer.qop,
                                              nc: answer.nonceCount, cnonce: answer.cnonce)
            let stored = Dictionary(uniqueKeysWithValues: algorithms.map {
                ($0, $0.userHash(username: "alice", realm: "parley.test", password: "s3cret"))
            })
            #expect(verifier.verify(presented, method: "INVITE", storedHA1: stored, now: 20) == .authenticated, "\(algorithms)")
            #expect(answer.algorithm == algorithms[0].rawValue)
        }
    }
}
