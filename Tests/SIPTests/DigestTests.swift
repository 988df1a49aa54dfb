import SIP
import Testing

/// Digest authentication (RFC 7616 as RFC 8760 brings it to SIP): the RFCs' worked examples, the
/// stateless nonces, and the verifier's answers.
@Suite struct DigestTests {
    /// RFC 7616 §3.9.1: the same request answered with SHA-256 and with MD5.
    @Test func rfc7616_3_9_1_examplesForSHA256AndMD5() {
        let (user, realm, password) = ("Mufasa", "http-auth@example.org", "Circle of Life")
        let nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
        let cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
        for (algorithm, expected) in [(DigestAlgorithm.sha256, "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
                                      (.md5, "8ca523f5e9506fed4657c9700eebdbec")] {
            let ha1 = algorithm.userHash(username: user, realm: realm, password: password)
            #expect(DigestResponse.compute(algorithm: algorithm, ha1: ha1, nonce: nonce, cnonce: cnonce, nc: "00000001", qop: "auth",
                                           method: "GET", uri: "/dir/index.html") == expected)
        }
    }

    /// RFC 2617 §3.5, the example most SIP stacks test against.
    @Test func rfc2617_3_5_example() {
        let ha1 = DigestAlgorithm.md5.userHash(username: "Mufasa", realm: "testrealm@host.com", password: "Circle Of Life")
        #expect(DigestResponse.compute(algorithm: .md5, ha1: ha1, nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093", cnonce: "0a4f113b",
                                       nc: "00000001", qop: "auth", method: "GET", uri: "/dir/index.html") == "6629fae49393a05397450978507c4ef1")
    }

    @Test func algorithmTokensAreCaseInsensitiveAndDefaultToMD5() {
        #expect(DigestAlgorithm(token: nil) == .md5)
        #expect(DigestAlgorithm(token: "sha-256") == .sha256)
        #expect(DigestAlgorithm(token: "MD5-sess")?.base == .md5)
        #expect(DigestAlgorithm(token: "SHA-512-256") == nil)
    }

    @Test func noncesAreFreshThenStaleAndForeignOnesInvalid() {
        let issuer = NonceIssuer(secret: Array(repeating: 7, count: 32), lifetime: 300)
        let nonce = issuer.issue(realm: "parley", now: 1_000)
        #expect(issuer.check(nonce, realm: "parley", now: 1_100) == .fresh)
        #expect(issuer.check(nonce, realm: "parley", now: 1_301) == .stale)
        #expect(issuer.check(nonce, realm: "other", now: 1_100) == .invalid)
        #expect(NonceIssuer(secret: Array(repeating: 8, count: 32)).check(nonce, realm: "parley", now: 1_100) == .invalid)
        #expect(issuer.check("not-a-nonce", realm: "parley", now: 1_100) == .invalid)
        #expect(issuer.check(String(repeating: "A", count: 500), realm: "parley", now: 1_100) == .invalid)
        #expect(issuer.issue(realm: "parley", now: 1_000) != nonce)  // random part
    }

    /// A client's answer to the verifier's own challenge, as a UA computes it.
    private func answer(_ challenge: String, verifier: DigestVerifier, user: String, password: String,
                        algorithm: DigestAlgorithm = .md5, uri: String = "sip:parley.test") -> DigestCredentials {
        let nonce = String(challenge.split(separator: "\"")[3])
        let ha1 = algorithm.userHash(username: user, realm: verifier.realm, password: password)
        let response = DigestResponse.compute(algorithm: algorithm, ha1: ha1, nonce: nonce, cnonce: "abc", nc: "00000001", qop: "auth",
                                              method: "REGISTER", uri: uri)
        return DigestCredentials(username: user, realm: verifier.realm, nonce: nonce, uri: uri, response: response,
                                 algorithm: algorithm.rawValue, qop: "auth", nc: "00000001", cnonce: "abc")
    }

    @Test func theVerifierAcceptsTheRightPasswordAndRejectsAWrongOneOrAnUnknownUserAlike() throws {
        let verifier = DigestVerifier(realm: "parley.test", nonces: NonceIssuer(lifetime: 60))
        let challenge = try #require(verifier.challenges(now: 10).first)
        #expect(challenge.contains("algorithm=MD5") && challenge.contains(#"qop="auth""#) && !challenge.contains("stale"))
        let stored = [DigestAlgorithm.md5: DigestAlgorithm.md5.userHash(username: "alice", realm: "parley.test", password: "s3cret")]
        let right = answer(challenge, verifier: verifier, user: "alice", password: "s3cret")
        #expect(verifier.verify(right, method: "REGISTER", storedHA1: stored, now: 20) == .authenticated)
        #expect(verifier.verify(right, method: "INVITE", storedHA1: stored, now: 20) == .rejected(.wrongResponse))
        let wrong = answer(challenge, verifier: verifier, user: "alice", password: "guess")
        #expect(verifier.verify(wrong, method: "REGISTER", storedHA1: stored, now: 20) == .rejected(.wrongResponse))
        let unknown = answer(challenge, verifier: verifier, user: "mallory", password: "s3cret")
        #expect(verifier.verify(unknown, method: "REGISTER", storedHA1: nil, now: 20) == .rejected(.wrongResponse))
        // The right answer to an expired nonce: stale, so the UA retries without asking its user.
        #expect(verifier.verify(right, method: "REGISTER", storedHA1: stored, now: 100) == .stale)
        #expect(verifier.challenges(now: 100, stale: true).allSatisfy { $0.hasSuffix("stale=true") })
    }

    @Test func sha256IsCheckedOnlyWhenOffered() throws {
        let both = DigestVerifier(realm: "parley.test", algorithms: [.sha256, .md5])
        let challenges = both.challenges(now: 0)
        #expect(challenges.count == 2 && challenges[0].contains("SHA-256") && challenges[1].contains("MD5"))
        let stored: [DigestAlgorithm: String] = [.md5: DigestAlgorithm.md5.userHash(username: "bob", realm: "parley.test", password: "pw"),
                                                 .sha256: DigestAlgorithm.sha256.userHash(username: "bob", realm: "parley.test", password: "pw")]
        let sha = answer(challenges[0], verifier: both, user: "bob", password: "pw", algorithm: .sha256)
        #expect(both.verify(sha, method: "REGISTER", storedHA1: stored, now: 1) == .authenticated)
        let md5Only = DigestVerifier(realm: "parley.test")
        #expect(md5Only.verify(sha, method: "REGISTER", storedHA1: stored, now: 1) == .rejected(.unsupportedAlgorithm))
    }

    @Test func malformedCredentialsAreRejected() {
        let verifier = DigestVerifier(realm: "parley.test")
        let nonce = verifier.nonces.issue(realm: "parley.test", now: 0)
        var credentials = DigestCredentials(username: "a", realm: "parley.test", nonce: nonce, uri: "sip:x", response: "00", qop: "auth")
        #expect(verifier.verify(credentials, method: "REGISTER", storedHA1: nil, now: 1) == .rejected(.malformed))
        credentials.qop = "auth-int"
        #expect(verifier.verify(credentials, method: "REGISTER", storedHA1: nil, now: 1) == .rejected(.unsupportedQOP))
        credentials.qop = nil
        credentials.realm = "elsewhere"
        #expect(verifier.verify(credentials, method: "REGISTER", storedHA1: nil, now: 1) == .rejected(.wrongRealm))
    }

    @Test func fiveFailuresInAMinuteBlockTheSource() {
        var limiter = AuthFailureLimiter(maxFailures: 5, window: 60, blockFor: 300, capacity: 3)
        for second in 0..<4 {
            let blocked = limiter.failed("10.0.0.1", now: Double(second * 20))
            #expect(!blocked)
        }  // spread over 80 s: at most 3 in any minute
        #expect(!limiter.isBlocked("10.0.0.1", now: 80))
        for _ in 0..<4 { limiter.failed("10.0.0.2", now: 100) }
        let step1 = limiter.failed("10.0.0.2", now: 101)
        #expect(step1)
        #expect(limiter.isBlocked("10.0.0.2", now: 400) && !limiter.isBlocked("10.0.0.2", now: 402))
        limiter.failed("10.0.0.3", now: 102)
        // Full (three tracked): a fourth source is not tracked until old entries expire.
        let fourth = limiter.failed("10.0.0.4", now: 103)
        #expect(!fourth && limiter.untracked == 1)
        limiter.succeeded("10.0.0.3")
        let step2 = limiter.failed("10.0.0.4", now: 104)
        #expect(!step2)
        #expect(limiter.untracked == 1)
    }
}
