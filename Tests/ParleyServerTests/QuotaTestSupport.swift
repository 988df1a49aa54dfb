import AccessToken
import Foundation
import HTTPWire
import JSONWire
import ParleyNet

/// `POST /v1/echo` and `DELETE` on its Location, for the quota and revocation tests. The offer is
/// a valid WebRTC audio offer whose peer never answers ICE checks: the session holds its quota
/// unit until it is deleted, closed or times out.
enum EchoRequests {
    static let offer = """
        v=0\r
        o=- 1 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        c=IN IP4 127.0.0.1\r
        a=mid:0\r
        a=sendrecv\r
        a=ice-ufrag:cliU\r
        a=ice-pwd:clientpassword0123456789\r
        a=fingerprint:sha-256 \((0..<32).map { _ in "AB" }.joined(separator: ":"))\r
        a=setup:actpass\r
        a=rtcp-mux\r
        a=rtpmap:111 opus/48000/2\r
        a=ssrc:4660 cname:client\r
        a=candidate:1 1 udp 2130706431 127.0.0.1 9 typ host\r
        a=end-of-candidates\r

        """

    static func post(_ client: HTTPClient, base: String, token: String) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(method: "POST", target: "/v1/echo",
                                          headers: ["Host": "127.0.0.1", "Authorization": "Bearer \(token)",
                                                    "Content-Type": "application/sdp"],
                                          body: Array(offer.utf8)), to: base + "/v1/echo")
    }

    static func delete(_ client: HTTPClient, base: String, location: String, token: String) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(method: "DELETE", target: location,
                                          headers: ["Host": "127.0.0.1", "Authorization": "Bearer \(token)"]),
                              to: base + location)
    }

    /// The error body's `code` and `reason`.
    static func error(_ response: HTTPResponse) -> (code: Int?, reason: String?) {
        let json = try? JSONValue.parse(response.body, maxDepth: 4).objectValue
        return (errorCode(response), json?["reason"]?.stringValue)
    }
}

/// A voice token for `identity` signed by an arbitrary key.
func voiceToken(accountSid: String, keySid: String, secret: String, identity: String) throws -> String {
    try AccessTokenBuilder.mint(accountSid: accountSid, apiKeySid: keySid, apiSecret: secret, identity: identity, ttl: 600,
                                grants: [.voice(VoiceGrant(incomingAllow: true))], now: Int64(Date().timeIntervalSince1970))
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
func eventually(_ timeout: Duration = .seconds(5), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
