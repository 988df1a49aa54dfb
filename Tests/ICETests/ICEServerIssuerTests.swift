import ICE
import ParleyCrypto
import Testing

/// The STUN and TURN servers a server hands out: URLs sorted by scheme, TURN REST credentials
/// (`EXPIRY:USER`, base64 HMAC-SHA1 of it under the shared secret) as coturn's `use-auth-secret`
/// checks them (values from Python's `hmac`).
@Suite struct ICEServerIssuerTests {
    static let issuer = ICEServerIssuer(urls: ["stun:stun.example.com:3478", "turn:turn.example.com:3478?transport=udp",
                                               "TURNS:turn.example.com:5349", "http://nope"],
                                        secret: "north-secret", ttl: 86_400) { HMAC.sha1(key: $0, message: $1) }

    @Test func urlsAreSortedByScheme() {
        #expect(Self.issuer.stunURLs == ["stun:stun.example.com:3478"])
        #expect(Self.issuer.turnURLs == ["turn:turn.example.com:3478?transport=udp", "TURNS:turn.example.com:5349"])
        #expect(ICEServerIssuer.scheme(of: "turn:h") == "turn" && ICEServerIssuer.scheme(of: ":h") == nil
                && ICEServerIssuer.scheme(of: "h") == nil)
    }

    @Test func turnEntriesCarryTimeLimitedCredentials() {
        let entries = Self.issuer.entries(user: "alice", now: 1_700_000_000)
        #expect(entries == [
            ICEServerIssuer.Entry(urls: ["stun:stun.example.com:3478"]),
            ICEServerIssuer.Entry(urls: ["turn:turn.example.com:3478?transport=udp", "TURNS:turn.example.com:5349"],
                                  username: "1700086400:alice", credential: "Nni2GlD6PVaoCP0Cx2DhLKDWjyY="),
        ])
        let short = Self.issuer.credentials(user: "AC00000000000000000000000000000001", now: 1_700_000_000, ttl: 3600)
        #expect(short.username == "1700003600:AC00000000000000000000000000000001" && short.password == "V7V9OzyGDQZRE/9jGk37WtFyIUs=")
    }

    @Test func stunOnlyNeedsNoCredentials() {
        let stun = ICEServerIssuer(urls: ["stun:s:3478"], secret: "", ttl: 60) { HMAC.sha1(key: $0, message: $1) }
        #expect(stun.entries(user: "a", now: 0) == [ICEServerIssuer.Entry(urls: ["stun:s:3478"])] && !stun.isEmpty)
        #expect(ICEServerIssuer(urls: [], secret: "", ttl: 60) { HMAC.sha1(key: $0, message: $1) }.isEmpty)
    }
}
