import AccessToken
import JSONWire
import ParleyCore
import Testing

/// A resolver over a fixed table.
struct StaticResolver: APIKeyResolver {
    var keys: [String: (accountSid: String, secret: String)]
    func secret(forKey sid: String) -> (accountSid: String, secret: [UInt8])? {
        keys[sid].map { ($0.accountSid, Array($0.secret.utf8)) }
    }
}

enum Fixture {
    static let account = "AC" + String(repeating: "a", count: 32)
    static let otherAccount = "AC" + String(repeating: "b", count: 32)
    static let key = "SK" + String(repeating: "c", count: 32)
    static let secret = "s3cr3tS3cr3tS3cr3tS3cr3tS3cr3t00"
    static let now: Int64 = 1_800_000_000

    static let resolver = StaticResolver(keys: [key: (account, secret)])

    static func verifier(now: Int64 = now, leeway: Int64 = 60) -> AccessTokenVerifier {
        AccessTokenVerifier(resolver: resolver, leeway: leeway, clock: { now })
    }

    static func builder(identity: String = "alice") -> AccessTokenBuilder {
        var b = AccessTokenBuilder(accountSid: account, apiKeySid: key, apiSecret: secret, identity: identity)
        b.grants = [.voice(VoiceGrant(incomingAllow: true, outgoingApplicationSid: "AP" + String(repeating: "d", count: 32)))]
        return b
    }

    /// A token with the builder's header and claims after `edit`, signed with `secret`.
    static func token(secret: String = secret, edit: (inout JSONObject) -> Void = { _ in },
                      editHeader: (inout JSONObject) -> Void = { _ in }) -> String {
        let b = builder()
        var header = b.header
        var claims = b.claims(now: now)
        editHeader(&header)
        edit(&claims)
        return JWS.signHS256(header: header, claims: claims, key: Array(secret.utf8))
    }

    /// The grants object of the default claims.
    static var grants: JSONObject { builder().claims(now: now)["grants"]!.objectValue! }
}

/// Asserts that verifying `token` fails with `code`; returns the error.
@discardableResult
func expectFailure(_ token: String, _ code: ParleyError.Code, verifier: AccessTokenVerifier = Fixture.verifier(),
                   sourceLocation: SourceLocation = #_sourceLocation) -> ParleyError? {
    do {
        let verified = try verifier.verify(token)
        Issue.record("expected \(code), got a verified token for \(verified.identity)", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    }
}
