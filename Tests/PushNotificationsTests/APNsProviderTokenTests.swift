import AccessToken
import JSONWire
import ParleyCrypto
import PushNotifications
import Testing

/// The provider token on a virtual clock: reused for 50 minutes, then re-signed.
@Suite struct APNsProviderTokenTests {
    @Test func cachedUntilTheRefreshInterval() throws {
        let key = try P256SigningKey.generate()
        var token = APNsProviderToken(key: key, keyID: "KEYID12345", teamID: "TEAMID1234")
        let start: Int64 = 1_700_000_000
        let first = try token.token(now: start)
        #expect(try token.token(now: start + 20 * 60) == first)
        #expect(try token.token(now: start + 50 * 60 - 1) == first)
        let second = try token.token(now: start + 50 * 60)
        #expect(second != first)
        #expect(token.issuedAt == start + 50 * 60)
        token.invalidate()
        #expect(try token.token(now: start + 51 * 60) != second)
        #expect(token.issuedAt == start + 51 * 60)
        #expect(try token.token(now: start) != second, "a clock that went backwards gets a fresh token")
    }

    @Test func tokenIsAnES256JWTWithKidAndIssuer() throws {
        let key = try P256SigningKey.generate()
        var token = APNsProviderToken(key: key, keyID: "KEYID12345", teamID: "TEAMID1234")
        let jwt = try token.token(now: 1_700_000_123)
        let parsed = try JWT.parse(jwt)
        #expect(parsed.header.json == ["alg": .string("ES256"), "kid": .string("KEYID12345")])
        #expect(parsed.claims == ["iss": .string("TEAMID1234"), "iat": .integer(1_700_000_123)])
        #expect(parsed.signature.count == 64)
        #expect(key.verifyingKey.isValidSignature(parsed.signature, for: parsed.signingInput))
        #expect(!(try P256SigningKey.generate()).verifyingKey.isValidSignature(parsed.signature, for: parsed.signingInput))
    }
}
