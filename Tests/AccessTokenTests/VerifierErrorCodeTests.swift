import AccessToken
import JSONWire
import ParleyCore
import ParleyCrypto
import Testing

/// Every error code the verifier produces, each from a token built to trigger it.
@Suite struct VerifierErrorCodeTests {
    // MARK: 20101 malformed or bad signature

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "a.b.c", "..", "W10.e30.", "e30.W10.",
                      "eyJhbGciOiJIUzI1NiJ9.eyJ.", "e30=.e30.AA", "e30.e30.!!"])
    func malformedIs20101(token: String) {
        expectFailure(token, .accessTokenInvalid)
    }

    @Test func tamperedPayloadIs20101() {
        let token = Fixture.token()
        var parts = token.split(separator: ".").map(String.init)
        var claims = Fixture.builder().claims(now: Fixture.now)
        claims["grants"] = .object(["identity": .string("mallory")])
        parts[1] = Base64URL.encode(JSONValue.object(claims).serialized())
        expectFailure(parts.joined(separator: "."), .accessTokenInvalid)
    }

    @Test func wrongSecretIs20101() {
        expectFailure(Fixture.token(secret: "not-the-secret"), .accessTokenInvalid)
    }

    @Test func emptyOrTruncatedSignatureIs20101() {
        let token = Fixture.token()
        let withoutSignature = String(token[..<token.lastIndex(of: ".")!]) + "."
        expectFailure(withoutSignature, .accessTokenInvalid)
        expectFailure(String(token.dropLast(4)), .accessTokenInvalid)
    }

    @Test func oversizedTokenIs20101() {
        let token = Fixture.token { $0["pad"] = .string(String(repeating: "x", count: JWT.maxTokenLength)) }
        let error = expectFailure(token, .accessTokenInvalid)
        #expect(error?.failureReason?.contains("longer") == true)
    }

    @Test func tenThousandGrantsAreRejectedQuickly() {
        var grants = Fixture.grants
        for i in 0..<10_000 { grants["g\(i)"] = .object([:]) }
        let token = Fixture.token { $0["grants"] = .object(grants) }
        let clock = ContinuousClock()
        let elapsed = clock.measure { expectFailure(token, .accessTokenInvalid) }
        #expect(elapsed < .milliseconds(100))
    }

    @Test func deepNestingIs20101() {
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        let json = "{\"iss\":\(deep)}"
        let token = "eyJhbGciOiJIUzI1NiJ9." + Base64URL.encode(Array(json.utf8)) + ".AA"
        expectFailure(token, .accessTokenInvalid)
    }

    // MARK: 20102 header

    @Test func algNoneIs20102() {
        var header = Fixture.builder().header
        header["alg"] = .string("none")
        let unsigned = JWS.signingInput(header: header, claims: Fixture.builder().claims(now: Fixture.now)) + "."
        expectFailure(unsigned, .accessTokenHeaderInvalid)
    }

    @Test(arguments: ["HS512", "RS256", "hs256", "ES256"])
    func otherAlgIs20102(alg: String) {
        expectFailure(Fixture.token(editHeader: { $0["alg"] = .string(alg) }), .accessTokenHeaderInvalid)
    }

    @Test func missingAlgIs20102() {
        expectFailure(Fixture.token(editHeader: { $0["alg"] = nil }), .accessTokenHeaderInvalid)
    }

    @Test func wrongOrMissingCtyIs20102() {
        expectFailure(Fixture.token(editHeader: { $0["cty"] = .string("twilio-fpa;v=2") }), .accessTokenHeaderInvalid)
        expectFailure(Fixture.token(editHeader: { $0["cty"] = nil }), .accessTokenHeaderInvalid)
    }

    @Test func wrongTypIs20102() {
        expectFailure(Fixture.token(editHeader: { $0["typ"] = .string("JWE") }), .accessTokenHeaderInvalid)
        expectFailure(Fixture.token(editHeader: { $0["typ"] = nil }), .accessTokenHeaderInvalid)
    }

    @Test func critOrNonStringRegionIs20102() {
        expectFailure(Fixture.token(editHeader: { $0["crit"] = .array([.string("exp")]) }), .accessTokenHeaderInvalid)
        expectFailure(Fixture.token(editHeader: { $0["twr"] = .integer(1) }), .accessTokenHeaderInvalid)
    }

    // MARK: 20103 issuer / subject

    @Test func unknownKeyIs20103() {
        let other = "SK" + String(repeating: "e", count: 32)
        expectFailure(Fixture.token { $0["iss"] = .string(other) }, .accessTokenIssuerInvalid)
    }

    @Test func missingIssuerIs20103() {
        expectFailure(Fixture.token { $0["iss"] = nil }, .accessTokenIssuerInvalid)
    }

    @Test func accountMismatchIs20103() {
        let error = expectFailure(Fixture.token { $0["sub"] = .string(Fixture.otherAccount) }, .accessTokenIssuerInvalid)
        #expect(error?.failureReason?.contains("sub") == true)
        expectFailure(Fixture.token { $0["sub"] = nil }, .accessTokenIssuerInvalid)
    }

    // MARK: 20104 expired

    @Test func expiredIs20104() {
        let exp = Fixture.now + 3600
        expectFailure(Fixture.token(), .accessTokenExpired, verifier: Fixture.verifier(now: exp + 61))
        #expect(throws: Never.self) { try Fixture.verifier(now: exp + 60).verify(Fixture.token()) }
    }

    @Test func missingOrNonNumericExpIs20104() {
        expectFailure(Fixture.token { $0["exp"] = nil }, .accessTokenExpired)
        expectFailure(Fixture.token { $0["exp"] = .string("soon") }, .accessTokenExpired)
        expectFailure(Fixture.token { $0["exp"] = .integer(Fixture.now - 10) }, .accessTokenExpired)
    }

    // MARK: 20105 not yet valid

    @Test func notYetValidIs20105() {
        expectFailure(Fixture.token(), .accessTokenNotYetValid, verifier: Fixture.verifier(now: Fixture.now - 61))
        #expect(throws: Never.self) { try Fixture.verifier(now: Fixture.now - 60).verify(Fixture.token()) }
    }

    @Test func futureIssuedAtIs20105() {
        let token = Fixture.token { $0["nbf"] = nil; $0["iat"] = .integer(Fixture.now + 600) }
        expectFailure(token, .accessTokenNotYetValid)
    }

    @Test func leewayIsConfigurable() {
        expectFailure(Fixture.token(), .accessTokenNotYetValid, verifier: Fixture.verifier(now: Fixture.now - 5, leeway: 0))
        #expect(throws: Never.self) { try Fixture.verifier(now: Fixture.now - 250, leeway: 300).verify(Fixture.token()) }
    }

    // MARK: 20106 grants

    @Test func missingOrMalformedGrantsIs20106() {
        expectFailure(Fixture.token { $0["grants"] = nil }, .accessTokenGrantsInvalid)
        expectFailure(Fixture.token { $0["grants"] = .array([]) }, .accessTokenGrantsInvalid)
        expectFailure(Fixture.token { $0["grants"] = .object(["identity": .string("alice"), "voice": .string("yes")]) },
                      .accessTokenGrantsInvalid)
        expectFailure(Fixture.token { $0["grants"] = .object(["identity": .string("alice"),
                                                              "voice": .object(["incoming": .object(["allow": .string("true")])])]) },
                      .accessTokenGrantsInvalid)
        expectFailure(Fixture.token { $0["grants"] = .object(["identity": .string("alice"),
                                                              "video": .object(["room": .integer(5)])]) },
                      .accessTokenGrantsInvalid)
    }

    @Test func missingIdentityIs20106() {
        var grants = Fixture.grants
        grants["identity"] = nil
        expectFailure(Fixture.token { $0["grants"] = .object(grants) }, .accessTokenGrantsInvalid)
    }

    @Test(arguments: [String(repeating: "a", count: 122), "alice-smith", "alice@example.com", "al ice", "", "élise", "a.b"])
    func identityRuleIs20106(identity: String) {
        var grants = Fixture.grants
        grants["identity"] = .string(identity)
        let error = expectFailure(Fixture.token { $0["grants"] = .object(grants) }, .accessTokenGrantsInvalid)
        #expect(error?.failureReason == Identity.ruleDescription)
        #expect(Identity.ruleDescription.contains("121"))
    }

    @Test func longestIdentityIsAccepted() throws {
        let identity = String(repeating: "Z9_", count: 40) + "x"  // 121 characters
        let token = try Fixture.builder(identity: identity).mint(now: Fixture.now)
        #expect(try Fixture.verifier().verify(token).identity == identity)
    }

    @Test func tooManyGrantMembersIs20106() {
        var grants = Fixture.grants
        for i in 0..<AccessTokenClaims.maxGrantMembers { grants["extra\(i)"] = .object([:]) }
        expectFailure(Fixture.token { $0["grants"] = .object(grants) }, .accessTokenGrantsInvalid)
    }

    // MARK: 20157 lifetime

    @Test func lifetimeOverADayIs20157() {
        let token = Fixture.token { $0["exp"] = .integer(Fixture.now + 86_401) }
        expectFailure(token, .expirationTimeExceedsMaxTimeAllowed)
        let exact = Fixture.token { $0["exp"] = .integer(Fixture.now + 86_400) }
        #expect(throws: Never.self) { try Fixture.verifier().verify(exact) }
    }

    @Test func lifetimeUsesIssuedAtWithoutNotBefore() {
        let token = Fixture.token { $0["nbf"] = nil; $0["exp"] = .integer(Fixture.now + 90_000) }
        expectFailure(token, .expirationTimeExceedsMaxTimeAllowed)
    }

    @Test func mintingRefusesLongTTL() {
        var b = Fixture.builder()
        b.ttl = 86_401
        #expect(throws: ParleyError(.expirationTimeExceedsMaxTimeAllowed, reason: "ttl must be 1…86400 seconds")) {
            try b.mint(now: Fixture.now)
        }
    }
}
