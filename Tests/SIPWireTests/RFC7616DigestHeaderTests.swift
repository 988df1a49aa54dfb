import Testing
@testable import SIPWire

/// Digest challenges and credentials (RFC 3261 §20.7, §20.44, §22.4; RFC 7616 §3.3, §3.4, §3.9;
/// RFC 8760): parsed from the RFCs' examples, written back and parsed again equal.
@Suite struct RFC7616DigestHeaderTests {
    static let sha256Challenge = """
        Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, \
        nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
        """

    static let sha256Credentials = """
        Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=SHA-256, \
        nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", \
        qop=auth, response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", \
        opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
        """

    @Test func section3_9_1_challenge() throws {
        let challenge = try SIPDigestChallenge(parsing: Self.sha256Challenge, header: "WWW-Authenticate")
        #expect(challenge.realm == "http-auth@example.org")
        #expect(challenge.qop == ["auth", "auth-int"])
        #expect(challenge.algorithm == "SHA-256")
        #expect(challenge.nonce == "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v")
        #expect(challenge.opaque == "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS")
        #expect(!challenge.stale && !challenge.userhash)
        #expect(try SIPDigestChallenge(parsing: challenge.headerValue, header: "WWW-Authenticate") == challenge)
    }

    @Test func section3_9_1_credentials() throws {
        let credentials = try SIPDigestCredentials(parsing: Self.sha256Credentials, header: "Authorization")
        #expect(credentials.username == "Mufasa")
        #expect(credentials.realm == "http-auth@example.org")
        #expect(credentials.uri == "/dir/index.html")
        #expect(credentials.algorithm == "SHA-256")
        #expect(credentials.nonceCount == "00000001" && credentials.nonceCountValue == 1)
        #expect(credentials.cnonce == "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        #expect(credentials.qop == "auth")
        #expect(credentials.response == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")
        #expect(try SIPDigestCredentials(parsing: credentials.headerValue, header: "Authorization") == credentials)
    }

    /// §3.9.2: a userhash challenge, and a username sent as an RFC 8187 `username*`.
    @Test func section3_9_2_userhashAndExtendedUsername() throws {
        let challenge = try SIPDigestChallenge(parsing: """
            Digest realm="api@example.org", qop="auth", algorithm=SHA-512-256, \
            nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", \
            charset=UTF-8, userhash=true
            """, header: "WWW-Authenticate")
        #expect(challenge.userhash && challenge.charset == "UTF-8" && challenge.algorithm == "SHA-512-256")
        let credentials = try SIPDigestCredentials(parsing: """
            Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, realm="api@example.org", uri="/doe.json", qop=auth, \
            algorithm=SHA-512-256, nc=00000001, cnonce="NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v", \
            nonce="5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", opaque="HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS", \
            userhash=false, response="ae66e67d6b427bd3f120414a82e4acff38e8ecd9101d6c861229025f607a79dd"
            """, header: "Authorization")
        #expect(credentials.username == "Jäsøn Doe")
        #expect(!credentials.userhash)
        #expect(try SIPDigestCredentials(parsing: credentials.headerValue, header: "Authorization") == credentials)
    }

    /// RFC 3261 §22.4 / §25's example credentials and a folded, MD5 challenge with stale=true in a 401.
    @Test func rfc3261DigestInMessages() throws {
        let text = "SIP/2.0 401 Unauthorized\r\nVia: SIP/2.0/UDP bobspc.biloxi.com:5060;branch=z9hG4bKnashds7;received=192.0.2.4\r\n"
            + "From: Bob <sip:bob@biloxi.com>;tag=a73kszlfl\r\nTo: Bob <sip:bob@biloxi.com>;tag=1410948204\r\n"
            + "Call-ID: 1j9FpLxk3uxtm8tn@biloxi.com\r\nCSeq: 1 REGISTER\r\n"
            + "WWW-Authenticate: Digest realm=\"atlanta.com\",\r\n domain=\"sip:ss1.carrier.com\", qop=\"auth\",\r\n"
            + "\tnonce=\"f84f1cec41e6cbe5aea9c8e88d359\",\r\n opaque=\"\", stale=TRUE, algorithm=MD5\r\n"
            + "WWW-Authenticate: Digest realm=\"atlanta.com\", nonce=\"a1\", algorithm=SHA-256, qop=\"auth\"\r\nContent-Length: 0\r\n\r\n"
        let message = try SIPMessage(parsing: text)
        #expect(message.wwwAuthenticate.count == 2)
        let md5 = try #require(message.wwwAuthenticate.first)
        #expect(md5.realm == "atlanta.com" && md5.domain == "sip:ss1.carrier.com" && md5.qop == ["auth"])
        #expect(md5.nonce == "f84f1cec41e6cbe5aea9c8e88d359" && md5.opaque == "" && md5.stale && md5.algorithm == "MD5")
        #expect(message.wwwAuthenticate.last?.algorithm == "SHA-256")

        let register = "REGISTER sip:biloxi.com SIP/2.0\r\nVia: SIP/2.0/UDP bobspc.biloxi.com:5060;branch=z9hG4bKnashds8\r\n"
            + "From: Bob <sip:bob@biloxi.com>;tag=a73kszlfl\r\nTo: Bob <sip:bob@biloxi.com>\r\nCall-ID: 1j9FpLxk3uxtm8tn@biloxi.com\r\n"
            + "CSeq: 2 REGISTER\r\nAuthorization: Digest username=\"bob\", realm=\"biloxi.com\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", "
            + "uri=\"sip:bob@biloxi.com\", qop=auth, nc=00000001, cnonce=\"0a4f113b\", response=\"6629fae49393a05397450978507c4ef1\", "
            + "opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"\r\nProxy-Authorization: Digest username=\"alice\", realm=\"atlanta.com\", "
            + "nonce=\"c60f3082ee1212b402a21831ae\", uri=\"sip:bob@biloxi.com\", response=\"245f23415f11432b3434341c022\"\r\nContent-Length: 0\r\n\r\n"
        let request = try SIPMessage(parsing: register)
        let credentials = try #require(request.authorization.first)
        #expect(credentials.username == "bob" && credentials.uri == "sip:bob@biloxi.com" && credentials.opaque == "5ccc069c403ebaf9f0171e9517f40e41")
        #expect(credentials.qop == "auth" && credentials.cnonce == "0a4f113b" && credentials.algorithm == nil)
        // RFC 2069 style credentials (no qop) from a proxy challenge.
        #expect(request.proxyAuthorization.first?.username == "alice")
        #expect(request.proxyAuthorization.first?.qop == nil)
    }

    @Test func quotedValuesWithEscapesAndCommas() throws {
        let challenge = SIPDigestChallenge(realm: #"a "quoted", realm\"#, nonce: "n,1", opaque: "o", qop: ["auth", "auth-int"])
        #expect(challenge.headerValue == #"Digest realm="a \"quoted\", realm\\", nonce="n,1", opaque="o", qop="auth,auth-int""#)
        #expect(try SIPDigestChallenge(parsing: challenge.headerValue, header: "WWW-Authenticate") == challenge)
    }

    @Test func malformedDigestIsRefused() {
        let bad = [
            "Digest",  // no realm or nonce
            #"Digest realm="a""#,  // no nonce
            #"Digest realm="a", nonce="b"#,  // unterminated quote
            #"Digest realm="a" nonce="b""#,  // missing comma
            #"Digest realm=, nonce="b""#,
            #"Basic realm="a", nonce="b""#,  // not Digest
            "Digest realm=a, nonce=b, qop",
        ]
        for text in bad {
            #expect(throws: SIPParseError.invalidHeader(name: "WWW-Authenticate"), "\(text)") {
                try SIPDigestChallenge(parsing: text, header: "WWW-Authenticate")
            }
        }
        let badCredentials = [
            #"Digest username="a", realm="r", nonce="n", uri="u""#,  // no response
            #"Digest username="a", realm="r", nonce="n", uri="u", response="x", qop=auth"#,  // qop without cnonce/nc
            #"Digest username="a", realm="r", nonce="n", uri="u", response="x", qop=auth, cnonce="c", nc=1"#,  // nc not 8LHEX
        ]
        for text in badCredentials {
            #expect(throws: SIPParseError.invalidHeader(name: "Authorization"), "\(text)") {
                try SIPDigestCredentials(parsing: text, header: "Authorization")
            }
        }
    }

    /// fuzz/regressions/sip-digest/token68-padding-then-commas: `Basic QWxh====…,,,` read as a
    /// parameter `QWxh` with the value `===…` wrote back `Basic QWxh====…`, a token68. A value
    /// starting with `=` is refused, so what parses writes back the same.
    @Test func token68PaddingFollowedByCommasIsRefused() throws {
        let text = "   \t Basic QWxh" + String(repeating: "=", count: 45) + ",,,,,     \t\t,,,\t\t"
        #expect(throws: SIPParseError.invalidHeader(name: "Authorization")) { try SIPAuthHeader(parsing: text, header: "Authorization") }
        #expect(throws: SIPParseError.invalidHeader(name: "Authorization")) { try SIPAuthHeader(parsing: "Basic QWxh =", header: "Authorization") }
        let nonce = try SIPAuthHeader(parsing: "Digest nonce=YWJj==, realm=r", header: "Authorization")
        #expect(nonce.parameters == [SIPParameter("nonce", "YWJj=="), SIPParameter("realm", "r")])
        #expect(try SIPAuthHeader(parsing: nonce.headerValue, header: "Authorization") == nonce)
    }

    /// fuzz/regressions/sip-digest/username-star-with-cr: a `username*` decoding to a CR had no
    /// quoted form to be written back in; it is refused (other control characters are escaped).
    @Test func extendedUsernameWithLineBreakIsRefused() throws {
        let tail = #", realm="r", uri="/", nonce="n", response="x""#
        #expect(throws: SIPParseError.invalidHeader(name: "Authorization")) {
            try SIPDigestCredentials(parsing: "Digest username*=UTF-8''J%C3%A4s%0Do2e" + tail, header: "Authorization")
        }
        let tab = try SIPDigestCredentials(parsing: "Digest username*=UTF-8''a%09b%01" + tail, header: "Authorization")
        #expect(tab.username == "a\tb\u{1}")
        #expect(try SIPDigestCredentials(parsing: tab.headerValue, header: "Authorization") == tab)
    }

    @Test func otherSchemesAndToken68() throws {
        let basic = try SIPAuthHeader(parsing: "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", header: "Authorization")
        #expect(basic.token68 == "QWxhZGRpbjpvcGVuIHNlc2FtZQ==" && !basic.isDigest)
        #expect(basic.headerValue == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(throws: SIPParseError.invalidHeader(name: "Authorization")) {
            try SIPDigestCredentials(parsing: "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", header: "Authorization")
        }
    }
}
