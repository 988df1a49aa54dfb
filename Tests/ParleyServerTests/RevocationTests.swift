import Foundation
import HTTPWire
import ParleyCore
import ParleyNet
@testable import ParleyServer
@testable import PlatformCore
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing
import WebRTC
import WebSocketWire

/// Revocation bites on the in-process server: revoking a key (through the store or `DELETE
/// Keys/{SK}.json`) ends the signaling sessions its tokens opened, their calls and their echo
/// sessions; rotating the auth token re-signs live calls' webhooks.
@Suite(.serialized) struct RevocationTests {
    @Test func revokingAKeyEndsItsSessionsTheirCallsAndEchoSessions() async throws {
        let h = try await VoiceHarness.start()
        let http = try HTTPClient()
        defer { http.shutdown() }
        let account = h.credentials.account.sid
        let key = try h.store.createAPIKey(accountSid: account, friendlyName: "doomed")
        let doomed = try voiceToken(accountSid: account, keySid: key.sid, secret: key.secret, identity: "alice")
        let alice = try TestParty(try await SignalingTestClient(baseURL: h.baseURL, token: doomed))
        try await alice.signaling.send(.listen, id: "l1")
        _ = try await alice.signaling.expect("listening") { if case .listening = $0 { true } else { nil } }
        let session = try #require(alice.signaling.sessionID)

        // carol (the default key) calls alice; both legs connect.
        let carol = try TestParty(try await h.client("carol"))
        _ = try await carol.invite(to: "alice")
        try await carol.connectMedia()
        let incoming = try await alice.expectIncoming()
        try await alice.accept(incoming.callSid)
        try await alice.expectConnected()
        try await carol.expectConnected()
        // And an echo session with another identity of the doomed key.
        let echo = try await EchoRequests.post(http, base: h.baseURL,
                                               token: voiceToken(accountSid: account, keySid: key.sid, secret: key.secret,
                                                                 identity: "alice_echo"))
        #expect(echo.status == 201)
        let echoID = String(try #require(echo.headers["Location"]).dropFirst("/v1/echo/".count))

        let start = ContinuousClock.now
        try h.store.revokeAPIKey(sid: key.sid)
        let hangup = try await alice.expectHangup()
        let hangupLatency = ContinuousClock.now - start
        #expect(hangup.callSid == incoming.callSid)
        #expect(hangup.code == 20103)
        let error = try await alice.signaling.expect("error") { if case .error(let e) = $0 { e } else { nil } }
        #expect(error.code == 20103)
        #expect(error.message == "API key \(key.sid) was revoked")
        while try await alice.signaling.next() != nil {}
        let closeLatency = ContinuousClock.now - start
        #expect(alice.signaling.webSocket.closeCode?.rawValue == SignalingCloseCode.unauthorized)
        print("in-process revoke → hangup \(hangupLatency), → close 4401 \(closeLatency)")

        // The other party's call ends; the leg's record carries the code.
        _ = try await carol.expectHangup()
        let child = try #require(try h.store.call(sid: incoming.callSid))
        #expect(child.status.isFinal)
        #expect(child.errorCode == 20103)
        // The echo session is closed and every unit of the key is back.
        #expect(await eventually { await h.server.media.session(id: echoID) == nil })
        let owner = QuotaOwner(accountSid: account, identity: "alice", apiKeySid: key.sid)
        #expect(await eventually { h.server.quotas.usage(of: owner).key == QuotaCounts(mediaSessions: 0, connections: 0, calls: 0) })
        // The session cannot be resumed with the revoked key's token; carol's session is untouched.
        await #expect(throws: ParleyError.self) {
            _ = try await SignalingTestClient(baseURL: h.baseURL, token: doomed, resume: session)
        }
        try await carol.signaling.send(.ping, id: "p")
        _ = try await carol.signaling.expect("pong") { if case .pong = $0 { true } else { nil } }
        await alice.close()
        await carol.close()
        await h.stop()
    }

    /// `DELETE Keys/{SK}.json` (auth token) revokes the key, and what it signed is closed as from the CLI.
    @Test func deletingAKeyOverRESTClosesItsSessions() async throws {
        let h = try await VoiceHarness.start()
        let http = try HTTPClient()
        defer { http.shutdown() }
        let account = h.credentials.account
        let key = try h.store.createAPIKey(accountSid: account.sid, friendlyName: "temporary")
        let client = try await SignalingTestClient(baseURL: h.baseURL,
                                                   token: voiceToken(accountSid: account.sid, keySid: key.sid,
                                                                     secret: key.secret, identity: "dave"))
        let path = "/2010-04-01/Accounts/\(account.sid)/Keys/\(key.sid).json"
        var headers = RESTFixture.basic(account.sid, account.authToken)
        headers.set("Host", "127.0.0.1")
        let deleted = try await http.send(HTTPRequest(method: "DELETE", target: path, headers: headers), to: h.baseURL + path)
        #expect(deleted.status == 204)
        let error = try await client.expect("error") { if case .error(let e) = $0 { e } else { nil } }
        #expect(error.code == 20103)
        while try await client.next() != nil {}
        #expect(client.webSocket.closeCode?.rawValue == SignalingCloseCode.unauthorized)
        #expect(try h.store.apiKey(sid: key.sid)?.revoked == true)
        await h.stop()
    }

    /// Rotation ends nothing (no session authenticates with the auth token) but a live call's
    /// later webhooks are signed with the new token.
    @Test func rotatingTheAuthTokenResignsLiveCallsWebhooks() async throws {
        let h = try await VoiceHarness.start()
        let http = try HTTPClient()
        defer { http.shutdown() }
        let application = try h.makeApplication()
        h.app.set("/voice", #"<Response><Pause length="60"/></Response>"#)
        let carol = try TestParty(try await h.client("carol", application: application.sid))
        let callSid = try await carol.invite(to: "anyone")
        try await carol.connectMedia()
        #expect(await eventually { h.app.requests("/voice").first?.signatureValid == true })

        let rotated = try h.store.rotateAuthToken(accountSid: h.credentials.account.sid)
        let next = try TwiMLTestApp(authToken: rotated.authToken)
        next.set("/next", #"<Response><Pause length="60"/></Response>"#)
        // Redirect (REST, with the API key, which rotation leaves alone) until a fetch arrives signed
        // with the new token: the watcher applies the rotation within a poll or two.
        let path = "/2010-04-01/Accounts/\(h.credentials.account.sid)/Calls/\(callSid).json"
        var headers = RESTFixture.basic(h.credentials.apiKey.sid, h.credentials.apiKey.secret)
        headers.set("Host", "127.0.0.1")
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        let body = Array("Url=\(RESTFixture.encode(next.baseURL + "/next"))".utf8)
        let resigned = await eventually(.seconds(10)) {
            let response = try? await http.send(HTTPRequest(method: "POST", target: path, headers: headers, body: body),
                                                to: h.baseURL + path)
            guard response?.status == 200 else { return false }
            try? await Task.sleep(for: .milliseconds(100))
            return next.requests("/next").contains { $0.signatureValid }
        }
        #expect(resigned)
        // Still live: rotation ended nothing.
        try await carol.signaling.send(.hangup(Hangup(callSid: callSid)))
        await carol.close()
        await next.shutdown()
        await h.stop()
    }
}
