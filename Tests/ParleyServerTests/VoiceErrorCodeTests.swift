import Foundation
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing
import WebRTC

/// Every failure a caller can meet, with the code of docs/voice.md's table.
@Suite(.serialized) struct VoiceErrorCodeTests {
    /// Places a call from alice and returns the code it ends with (from `hangup` or `error`).
    private func failingCall(_ h: VoiceHarness, application: String? = nil, to: String,
                             during: (@Sendable (String) async throws -> Void)? = nil) async throws -> (code: Int?, callSid: String?) {
        let alice = try TestParty(try await h.client("alice", application: application))
        defer { Task { await alice.close() } }
        let created = try await alice.invite(to: to)
        if created.hasPrefix("error:") { return (Int(created.dropFirst(6)), nil) }
        try await during?(created)
        let hangup = try await alice.expectHangup()
        #expect(hangup.callSid == created)
        return (hangup.code, created)
    }

    @Test func calleeOfflineWithoutBindingIs31480() async throws {
        let h = try await VoiceHarness.start()
        let (code, sid) = try await failingCall(h, to: "carol")
        #expect(code == 31480)
        let record = try h.store.call(sid: try #require(sid))
        #expect(record?.errorCode == 31480)
        await h.stop()
    }

    @Test func rejectedIs31603AndBusyIs31486() async throws {
        let h = try await VoiceHarness.start()
        for (reason, expected, status) in [(RejectReason.rejected, 31603, CallStatus.failed), (.busy, 31486, .busy)] {
            let bob = try TestParty(try await h.client("bob", listen: true))
            let (code, sid) = try await failingCall(h, to: "bob") { _ in
                let incoming = try await bob.expectIncoming()
                try await bob.signaling.send(.reject(Reject(callSid: incoming.callSid, reason: reason)))
            }
            #expect(code == expected)
            let record = try h.store.call(sid: try #require(sid))
            #expect(record?.status == status)
            await bob.close()
        }
        await h.stop()
    }

    @Test func noAnswerBeforeTimeoutIs31408() async throws {
        let h = try await VoiceHarness.start()
        let app = try h.makeApplication()
        h.app.set("/voice", #"<Response><Dial timeout="1" answerOnBridge="true"><Client>bob</Client></Dial></Response>"#)
        let bob = try TestParty(try await h.client("bob", listen: true))
        let (code, sid) = try await failingCall(h, application: app.sid, to: "bob")
        #expect(code == 31408)
        let cancelled = try await bob.signaling.expect("cancelled") { if case .cancelled(let c) = $0 { c } else { nil } }
        #expect(cancelled.code == 31408)
        let record = try h.store.call(sid: try #require(sid))
        #expect(record?.status == .noAnswer)
        await bob.close()
        await h.stop()
    }

    @Test func callerCancelIs31487ForCallerAndCallee() async throws {
        let h = try await VoiceHarness.start()
        let bob = try TestParty(try await h.client("bob", listen: true))
        let alice = try TestParty(try await h.client("alice"))
        let callSid = try await alice.invite(to: "bob")
        _ = try await bob.expectIncoming()
        try await alice.signaling.send(.cancel(CallReference(callSid: callSid)))
        let cancelled = try await bob.signaling.expect("cancelled") { if case .cancelled(let c) = $0 { c } else { nil } }
        #expect(cancelled.code == 31487)
        try await Task.sleep(for: .milliseconds(100))
        let record = try #require(try h.store.call(sid: callSid))
        #expect(record.status == .canceled)
        #expect(record.errorCode == 31487)
        await alice.close()
        await bob.close()
        await h.stop()
    }

    @Test func emptyToIs31484() async throws {
        let h = try await VoiceHarness.start()
        let (code, _) = try await failingCall(h, to: "  ")
        #expect(code == 31484)
        await h.stop()
    }

    @Test func unknownApplicationIs21218() async throws {
        let h = try await VoiceHarness.start()
        let (code, _) = try await failingCall(h, application: "AP" + String(repeating: "0", count: 32), to: "bob")
        #expect(code == 21218)
        await h.stop()
    }

    @Test func tokenWithoutVoiceGrantIs31403() async throws {
        let h = try await VoiceHarness.start()
        let client = try await SignalingTestClient(baseURL: h.baseURL, token: try h.token("mallory", voice: false))
        let party = try TestParty(client)
        let created = try await party.invite(to: "bob")
        #expect(created == "error:31403")
        await party.close()
        await h.stop()
    }

    /// `<Sip>` and `<Number>` have no `DialRoute` until the SIP gateway exists: alone in a `<Dial>`
    /// they fail it with 31404 (the caller unanswered: `answerOnBridge`); beside a `<Client>` they
    /// are skipped and the client rings.
    @Test func dialNounsWithoutARouteAre31404() async throws {
        let h = try await VoiceHarness.start()
        for noun in ["<Sip>sip:bob@example.com</Sip>", "<Number>+15551234567</Number>"] {
            let app = try h.makeApplication(path: "/unrouted")
            h.app.set("/unrouted", "<Response><Dial answerOnBridge=\"true\">\(noun)</Dial></Response>")
            let (code, sid) = try await failingCall(h, application: app.sid, to: "bob")
            #expect(code == 31404)
            #expect(try h.store.call(sid: try #require(sid))?.errorCode == 31404)
        }
        let bob = try TestParty(try await h.client("bob", listen: true))
        let mixed = try h.makeApplication(path: "/mixed")
        h.app.set("/mixed", "<Response><Dial answerOnBridge=\"true\"><Sip>sip:bob@example.com</Sip><Client>bob</Client></Dial></Response>")
        let (code, _) = try await failingCall(h, application: mixed.sid, to: "bob") { _ in
            let incoming = try await bob.expectIncoming()
            #expect(incoming.to == "client:bob")
            try await bob.signaling.send(.reject(Reject(callSid: incoming.callSid, reason: .rejected)))
        }
        #expect(code == 31603)
        await bob.close()
        await h.stop()
    }

    @Test func unreachableWebhookIs31502AndInvalidTwiMLIs31500() async throws {
        let h = try await VoiceHarness.start()
        let dead = try h.store.createApplication(ApplicationDraft(friendlyName: "dead", voiceURL: "http://127.0.0.1:1/voice"),
                                                 accountSid: h.credentials.account.sid)
        #expect(try await failingCall(h, application: dead.sid, to: "bob").code == 31502)
        let broken = try h.makeApplication(path: "/broken")
        h.app.set("/broken", "<Response><Dance/></Response>")
        let (code, sid) = try await failingCall(h, application: broken.sid, to: "bob")
        #expect(code == 31500)
        let record = try h.store.call(sid: try #require(sid))
        let message = try #require(record?.errorMessage)
        #expect(message.contains("Dance"))
        await h.stop()
    }
}
