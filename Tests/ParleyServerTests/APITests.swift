import AccessToken
import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyNet
import ParleyServer
import ParleyStore
import PlatformCore
import Testing

@Suite struct APITests {
    @Test func healthzAnswers() async throws {
        let s = try RunningServer.start()
        let response = try await s.get("/healthz")
        #expect(response.status == 200)
        #expect(response.bodyText.contains(#""status":"ok""#))
        await s.stop()
    }

    @Test func meReturnsTheVerifiedIdentityAndGrants() async throws {
        let s = try RunningServer.start()
        let token = try s.token(grants: [.voice(VoiceGrant(incomingAllow: true, outgoingApplicationSid: "AP" + String(repeating: "1", count: 32))),
                                         .video(VideoGrant(room: "standup"))])
        let response = try await s.me(token: token)
        #expect(response.status == 200)
        let json = try #require(try JSONValue.parse(response.body, maxDepth: 8).objectValue)
        #expect(json["identity"]?.stringValue == "alice")
        #expect(json["account_sid"]?.stringValue == s.server.defaultCredentials.account.sid)
        #expect(response.bodyText.contains(#""room":"standup""#))
        #expect(response.bodyText.contains(#""allow":true"#))
        await s.stop()
    }

    /// Each token failure reaches the HTTP client as 401 with the seed's code, and is counted.
    @Test func tokenFailuresAnswer401WithTheSeedCode() async throws {
        let s = try RunningServer.start()
        let now = Int64(Date().timeIntervalSince1970)
        let good = try s.token()
        let cases: [(String, Int)] = [
            ("not-a-jwt", 20101),
            (String(good.dropLast(2)) + "AA", 20101),                                 // bad signature
            (try s.token(ttl: 3600, now: now - 7200), 20104),                        // expired
            (try s.forged { $0["exp"] = .integer(now + 90_000) }, 20157),             // lifetime over 24 h
            (try s.forged { claims in                                                 // identity rule
                var grants = claims["grants"]!.objectValue!
                grants["identity"] = .string("bob smith")
                claims["grants"] = .object(grants)
            }, 20106),
        ]
        for (token, code) in cases {
            let response = try await s.me(token: token)
            #expect(response.status == 401, "\(code)")
            #expect(errorCode(response) == code)
        }
        let missing = try await s.get("/v1/me")
        #expect(missing.status == 401 && errorCode(missing) == 20101)
        #expect(s.server.metrics.tokenRejectionsByCode[20101] == 3)
        #expect(s.server.metrics.tokenRejectionsByCode[20104] == 1)
        await s.stop()
    }

    /// A token from an API key the server does not know is 20103; a revoked key is too.
    @Test func unknownAndRevokedKeysAre20103() async throws {
        let s = try RunningServer.start()
        let stranger = try AccessTokenBuilder.mint(accountSid: "AC" + String(repeating: "e", count: 32),
                                                   apiKeySid: "SK" + String(repeating: "f", count: 32),
                                                   apiSecret: "x", identity: "alice", grants: [])
        #expect(errorCode(try await s.me(token: stranger)) == 20103)
        let token = try s.token()
        try s.server.store.revokeAPIKey(sid: s.server.defaultCredentials.apiKey.sid)
        #expect(errorCode(try await s.me(token: token)) == 20103)
        await s.stop()
    }

    /// A token carrying 10,000 grants is refused cleanly and the server keeps serving.
    @Test func tokenWithTenThousandGrantsIsRejected() async throws {
        let s = try RunningServer.start()
        var grants = JSONObject()
        for i in 0..<10_000 { grants["grant\(i)"] = .object(["allow": .bool(true)]) }
        grants["identity"] = .string("alice")
        let creds = s.server.defaultCredentials
        let claims: JSONObject = ["iss": .string(creds.apiKey.sid), "sub": .string(creds.account.sid),
                                  "exp": .integer(Int64(Date().timeIntervalSince1970) + 600), "grants": .object(grants)]
        let header: JSONObject = ["alg": .string("HS256"), "typ": .string("JWT"), "cty": .string("twilio-fpa;v=1")]
        let huge = JWS.signHS256(header: header, claims: claims, key: Array(creds.apiKey.secret.utf8))
        #expect(huge.utf8.count > 100_000)
        let response = try await s.me(token: huge)
        #expect(response.status == 401 || response.status == 431)
        if response.status == 401 { #expect(errorCode(response) == 20101) }
        #expect(try await s.get("/healthz").status == 200)
        await s.stop()
    }

    @Test func unknownPathsAndMethods() async throws {
        let s = try RunningServer.start()
        let missing = try await s.get("/nope")
        #expect(missing.status == 404 && errorCode(missing) == 31404)
        let post = try await s.client.send(HTTPRequest(method: "POST", target: "/healthz"), to: s.base + "/healthz")
        #expect(post.status == 405)
        await s.stop()
    }
}
