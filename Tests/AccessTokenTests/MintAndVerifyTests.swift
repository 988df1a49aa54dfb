import AccessToken
import JSONWire
import ParleyCore
import ParleyCrypto
import Testing

@Suite struct MintAndVerifyTests {
    @Test func roundTripVoiceGrant() throws {
        let voice = VoiceGrant(incomingAllow: true, outgoingApplicationSid: "AP" + String(repeating: "1", count: 32),
                               outgoingApplicationParams: ["to": "bob", "mode": "test"],
                               pushCredentialSid: "CR" + String(repeating: "2", count: 32), endpointId: "ep1")
        let token = try AccessTokenBuilder.mint(accountSid: Fixture.account, apiKeySid: Fixture.key,
                                                apiSecret: Fixture.secret, identity: "alice", ttl: 600,
                                                grants: [.voice(voice)], region: "au1", now: Fixture.now)
        let verified = try Fixture.verifier().verify(token)
        #expect(verified.accountSid == Fixture.account)
        #expect(verified.apiKeySid == Fixture.key)
        #expect(verified.identity == "alice")
        #expect(verified.voice == voice)
        #expect(verified.video == nil)
        #expect(verified.region == "au1")
        #expect(verified.issuedAt == Fixture.now && verified.notBefore == Fixture.now)
        #expect(verified.expires == Fixture.now + 600)
        #expect(verified.tokenId == "\(Fixture.key)-\(Fixture.now)")
    }

    @Test func roundTripVideoGrant() throws {
        let token = try AccessTokenBuilder.mint(accountSid: Fixture.account, apiKeySid: Fixture.key,
                                                apiSecret: Fixture.secret, identity: "bob",
                                                grants: [.video(VideoGrant(room: "standup"))], now: Fixture.now)
        let verified = try Fixture.verifier().verify(token)
        #expect(verified.video == VideoGrant(room: "standup"))
        #expect(verified.voice == nil)
        #expect(verified.region == nil)
    }

    /// Parley's finer video grants: written only when set, read strictly (a non-boolean is 20106).
    @Test func finerVideoGrantsRoundTripAndAreTyped() throws {
        let grant = VideoGrant(room: "standup", canPublish: false, canSubscribe: true, canPublishData: false)
        let token = try AccessTokenBuilder.mint(accountSid: Fixture.account, apiKeySid: Fixture.key, apiSecret: Fixture.secret,
                                                identity: "bob", grants: [.video(grant)], now: Fixture.now)
        #expect(try Fixture.verifier().verify(token).video == grant)
        #expect(VideoGrant(room: "x").json.count == 1, "a Twilio-shaped grant stays as Twilio writes it")
        var bad = VideoGrant(room: "x").json
        bad["canPublish"] = .string("no")
        #expect(throws: ParleyError.self) { try VideoGrant(json: bad) }
        bad["canPublish"] = .null
        #expect(try VideoGrant(json: bad).canPublish == nil)
    }

    @Test func headerIsTwilios() throws {
        let token = try Fixture.builder().mint(now: Fixture.now)
        let header = String(token.split(separator: ".")[0])
        #expect(Base64URL.decode(header) == Array(#"{"alg":"HS256","cty":"twilio-fpa;v=1","typ":"JWT"}"#.utf8))
        var b = Fixture.builder()
        b.region = "au1"
        let regional = String(try b.mint(now: Fixture.now).split(separator: ".")[0])
        #expect(Base64URL.decode(regional) == Array(#"{"alg":"HS256","cty":"twilio-fpa;v=1","twr":"au1","typ":"JWT"}"#.utf8))
    }

    @Test func claimsShape() throws {
        let parsed = try JWT.parse(try Fixture.builder().mint(now: Fixture.now))
        let c = parsed.claims
        #expect(c["jti"] == .string("\(Fixture.key)-\(Fixture.now)"))
        #expect(c["iss"] == .string(Fixture.key))
        #expect(c["sub"] == .string(Fixture.account))
        #expect(c["exp"] == .integer(Fixture.now + 3600))
        let voice = c["grants"]?.objectValue?["voice"]?.objectValue
        #expect(voice?["incoming"] == .object(["allow": .bool(true)]))
        #expect(voice?["outgoing"] == .object(["application_sid": .string("AP" + String(repeating: "d", count: 32))]))
    }

    @Test func mintingRejectsBadIdentity() {
        #expect(throws: ParleyError(.accessTokenGrantsInvalid, reason: Identity.ruleDescription)) {
            try Fixture.builder(identity: "alice smith").mint(now: Fixture.now)
        }
    }

    @Test func unknownGrantTypesAreKeptButIgnored() throws {
        var grants = Fixture.grants
        grants["chat"] = .object(["service_sid": .string("IS123")])
        let verified = try Fixture.verifier().verify(Fixture.token { $0["grants"] = .object(grants) })
        #expect(verified.claims["grants"]?.objectValue?["chat"] != nil)
    }

    @Test func scalarParamsAreReadAsText() throws {
        let voice = JSONObject(dictionaryLiteral: ("outgoing", .object(["application_sid": .string("AP1"),
                                                                          "params": .object(["n": .integer(5), "ok": .bool(true)])])))
        let grant = try VoiceGrant(json: voice)
        #expect(grant.outgoingApplicationParams == ["n": "5", "ok": "true"])
    }
}

/// RFC 7515 Appendix A.1: the HS256 example JWS.
@Suite struct RFC7515AppendixA1Tests {
    static let token = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let jwkK = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"

    @Test func signatureVerifies() throws {
        let parsed = try JWT.parse(Self.token)
        let key = try #require(Base64URL.decode(Self.jwkK))
        #expect(JWS.verifyHS256(signingInput: parsed.signingInput, signature: parsed.signature, key: key))
        #expect(JWS.hs256Signature(signingInput: parsed.signingInput, key: key) == parsed.signature)
        #expect(!JWS.verifyHS256(signingInput: parsed.signingInput, signature: parsed.signature, key: key.dropLast()))
    }

    @Test func headerAndClaimsParse() throws {
        let parsed = try JWT.parse(Self.token)
        #expect(parsed.header.alg == "HS256")
        #expect(parsed.header.typ == "JWT")
        #expect(parsed.header.cty == nil)
        #expect(parsed.claims["iss"] == .string("joe"))
        #expect(parsed.claims["exp"] == .integer(1_300_819_380))
        #expect(parsed.claims["http://example.com/is_root"] == .bool(true))
    }

    @Test func notATwilioTokenSoHeaderIsRejected() {
        let resolver = StaticResolver(keys: ["joe": ("AC1", "x")])
        expectFailure(Self.token, .accessTokenHeaderInvalid,
                      verifier: AccessTokenVerifier(resolver: resolver, clock: { 1_300_819_000 }))
    }
}
