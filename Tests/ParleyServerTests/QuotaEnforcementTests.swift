import Foundation
import HTTPWire
import ParleyCore
import ParleyNet
@testable import ParleyServer
import ParleyStore
@testable import PlatformCore
import ParleyTestSupport
import Signaling
import Testing
import WebRTC
import WebSocketWire

/// Quotas where clients meet them, on the in-process server: echo sessions over HTTP (429), hellos
/// over signaling (31429, close 4429), invites (31429) and accepts (31429, the call rings on).
@Suite(.serialized) struct QuotaEnforcementTests {
    @Test func echoSessionsStopAtTheIdentityQuotaAndDeleteGivesOneBack() async throws {
        let h = try await VoiceHarness.start { $0.quotas.perIdentity.mediaSessions = 3 }
        let http = try HTTPClient()
        defer { http.shutdown() }
        let alice = try h.token("alice")
        var locations: [String] = []
        for _ in 0..<3 {
            let created = try await EchoRequests.post(http, base: h.baseURL, token: alice)
            #expect(created.status == 201, "\(created.bodyText)")
            locations.append(try #require(created.headers["Location"]))
        }
        let refused = try await EchoRequests.post(http, base: h.baseURL, token: alice)
        #expect(refused.status == 429)
        #expect(refused.headers["Retry-After"] == "30")
        let (code, reason) = EchoRequests.error(refused)
        #expect(code == 31429)
        #expect(reason?.contains("--max-sessions-per-identity") == true, "\(reason ?? "-")")
        #expect(await h.server.media.statistics().sessions == 3, "a refused offer creates no session")

        // Another identity of the same key is not affected.
        let bob = try await EchoRequests.post(http, base: h.baseURL, token: h.token("bob"))
        #expect(bob.status == 201)

        // DELETE gives the unit back at once.
        #expect(try await EchoRequests.delete(http, base: h.baseURL, location: locations[0], token: alice).status == 200)
        #expect(try await EchoRequests.post(http, base: h.baseURL, token: alice).status == 201)
        #expect(h.server.quotas.usage(of: QuotaOwner(accountSid: h.credentials.account.sid, identity: "alice",
                                                     apiKeySid: h.credentials.apiKey.sid)).identity.mediaSessions == 3)
        // A second DELETE of the same session is 404, and counts nothing twice.
        #expect(try await EchoRequests.delete(http, base: h.baseURL, location: locations[0], token: alice).status == 404)
        await h.stop()
        // Shutdown closes every session; each gives its unit back.
        #expect(await eventually { h.server.quotas.ownerCount.identities == 0 })
    }

    @Test func helloOverTheConnectionQuotaGets31429AndClose4429() async throws {
        let h = try await VoiceHarness.start { $0.quotas.perIdentity.connections = 2 }
        let first = try await h.client("alice")
        let second = try await h.client("alice")
        do {
            _ = try await h.client("alice")
            Issue.record("a third connection for alice was welcomed")
        } catch let error as ParleyError {
            #expect(error.code == .tooManyRequests)
            #expect(error.failureReason?.contains("--max-connections-per-identity") == true)
        }
        // The refused socket is closed with 4429.
        let raw = try await WebSocket.connect(url: h.baseURL.replacingOccurrences(of: "http://", with: "ws://") + "/v1/signaling")
        try await raw.send(text: SignalingCodec.encode(SignalingEnvelope(id: "h1", message: .hello(Hello(token: try h.token("alice"))))))
        var codes: [Int] = []
        while let message = await raw.receive() {
            if case .text(let text) = message, case .error(let body)? = try? SignalingCodec.decode(text).message { codes.append(body.code) }
        }
        #expect(codes == [31429])
        #expect(raw.closeCode?.rawValue == SignalingCloseCode.tooManyConnections)

        // Other identities connect; a resume of alice's session is not a new connection.
        let bob = try await h.client("bob")
        let session = try #require(second.sessionID)
        await second.drop()
        let resumed = try await SignalingTestClient(baseURL: h.baseURL, token: try h.token("alice"), resume: session)
        guard case .resumed = resumed.greeting else { Issue.record("expected resumed, got \(resumed.greeting)"); return }
        for client in [first, resumed, bob] { await client.close() }
        await h.stop()
    }

    /// A client that closes with 1000 is done: its session ends at once and gives its connection
    /// back, so connecting once per call never runs into the quota (the soak found it did).
    @Test func connectionsClosedOnPurposeGiveTheirUnitBackAtOnce() async throws {
        let h = try await VoiceHarness.start { $0.quotas.perIdentity.connections = 2 }
        for _ in 0..<6 {
            let client = try await h.client("alice")
            await client.close()
            let owner = QuotaOwner(accountSid: h.credentials.account.sid, identity: "alice", apiKeySid: h.credentials.apiKey.sid)
            #expect(await eventually { h.server.quotas.usage(of: owner).identity.connections == 0 })
        }
        // A drop keeps the session (and its unit) for the resume window.
        let dropped = try await h.client("alice")
        await dropped.drop()
        let kept = try await h.client("alice")
        do {
            _ = try await h.client("alice")
            Issue.record("the dropped session should still hold its unit")
        } catch let error as ParleyError {
            #expect(error.code == .tooManyRequests)
        }
        await kept.close()
        await h.stop()
    }

    @Test func invitesOverTheCallQuotaFailWith31429() async throws {
        let h = try await VoiceHarness.start { $0.quotas.perIdentity.calls = 1 }
        let bob = try await h.client("bob", listen: true)
        let alice = try await h.client("alice")
        /// The call SID, or `error:<code>`.
        func invite(_ id: String) async throws -> String {
            try await alice.send(.invite(Invite(callId: id, to: "bob", sdp: EchoRequests.offer)), id: id)
            return try await alice.expect("callCreated or error") { message -> String? in
                switch message {
                case .callCreated(let created) where created.callId == id: created.callSid
                case .error(let body): "error:\(body.code)"
                default: nil
                }
            }
        }
        let first = try await invite("c1")
        #expect(first.hasPrefix("CA"))
        #expect(try await invite("c2") == "error:31429")
        // Hanging up gives the call back at once.
        try await alice.send(.hangup(Hangup(callSid: first)))
        let third = try await invite("c3")
        #expect(third.hasPrefix("CA"), "\(third)")
        #expect(h.server.metrics.render().contains("parley_call_errors_total{code=\"31429\"} 1"))
        await alice.close()
        await bob.close()
        await h.stop()
    }

    /// Echo sessions and call legs share the media-session quota: a callee at its limit cannot
    /// accept, the call rings on, and once the echo session is gone the accept works.
    @Test func acceptOverTheMediaQuotaIsRefusedAndTheCallRingsOn() async throws {
        let h = try await VoiceHarness.start { $0.quotas.perIdentity.mediaSessions = 1 }
        let http = try HTTPClient()
        defer { http.shutdown() }
        let echo = try await EchoRequests.post(http, base: h.baseURL, token: h.token("bob"))
        #expect(echo.status == 201)
        let bob = try TestParty(try await h.client("bob", listen: true))
        let alice = try TestParty(try await h.client("alice"))
        let callSid = try await alice.invite(to: "bob")
        try await alice.connectMedia()
        let incoming = try await bob.expectIncoming()

        try await bob.signaling.send(.accept(Accept(callSid: incoming.callSid, sdp: EchoRequests.offer)), id: "a1")
        let refusal = try await bob.signaling.expect("error") { if case .error(let e) = $0 { e } else { nil } }
        #expect(refusal.code == 31429)

        #expect(try await EchoRequests.delete(http, base: h.baseURL, location: try #require(echo.headers["Location"]),
                                              token: h.token("bob")).status == 200)
        try await bob.accept(incoming.callSid)
        try await bob.expectConnected()
        try await alice.expectConnected()
        try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))
        _ = try await bob.expectHangup()
        await alice.close()
        await bob.close()
        await h.stop()
    }
}
