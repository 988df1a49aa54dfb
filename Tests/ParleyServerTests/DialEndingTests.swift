import Foundation
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// How a call ends against its TwiML as Twilio ends it (issue 13, items 3 and 4): a `<Dial action>`
/// is requested whenever the dial ends — the caller hanging up included, for clients and
/// conferences — and a `<Hangup>` first answers the call, then completes it.
@Suite(.serialized) struct DialEndingTests {
    @Test func theCallerHangingUpOnABridgedClientStillRequestsTheDialAction() async throws {
        let h = try await VoiceHarness.start()
        h.app.set("/voice", #"<Response><Dial action="/dial-action" timeout="10"><Client>bob</Client></Dial></Response>"#)
        h.app.set("/dial-action", "<Response><Say>never heard</Say></Response>")
        let (alice, bob, callSid, bobSid) = try await h.aliceDialsBob()
        try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))
        _ = try await bob.expectHangup()

        let action = try await Self.request(h, "/dial-action")
        #expect(action.parameters["DialCallStatus"] == "completed")
        #expect(action.parameters["DialCallSid"] == bobSid)
        #expect(action.parameters["CallStatus"] == "completed")
        #expect(action.parameters["CallSid"] == callSid)
        #expect(action.signatureValid)
        #expect(try h.store.call(sid: callSid)?.status == .completed)
        await alice.close()
        await bob.close()
        await h.stop()
    }

    @Test func theCallerHangingUpWhileItRingsRequestsTheActionAsCanceled() async throws {
        let h = try await VoiceHarness.start()
        let app = try h.makeApplication()
        h.app.set("/voice", #"<Response><Dial action="/dial-action" timeout="10"><Client>bob</Client></Dial></Response>"#)
        h.app.set("/dial-action", "<Response/>")
        let bob = try TestParty(try await h.client("bob", listen: true))
        let alice = try TestParty(try await h.client("alice", application: app.sid))
        let callSid = try await alice.invite(to: "bob")
        try await alice.connectMedia()
        let incoming = try await bob.expectIncoming()
        try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))
        _ = try await bob.signaling.expect("cancelled") { if case .cancelled = $0 { true } else { nil } }

        let action = try await Self.request(h, "/dial-action")
        #expect(action.parameters["DialCallStatus"] == "canceled")
        #expect(action.parameters["DialCallSid"] == incoming.callSid)
        await alice.close()
        await bob.close()
        await h.stop()
    }

    @Test func theCallerHangingUpInAConferenceRequestsTheDialAction() async throws {
        let h = try await VoiceHarness.start()
        let app = try h.makeApplication()
        h.app.set("/voice", #"<Response><Dial action="/conference-action"><Conference beep="false">room</Conference></Dial></Response>"#)
        h.app.set("/conference-action", "<Response/>")
        let alice = try TestParty(try await h.client("alice", application: app.sid))
        let callSid = try await alice.invite(to: "room")
        try await alice.connectMedia()
        try await alice.expectConnected()
        try await alice.signaling.send(.hangup(Hangup(callSid: callSid)))

        let action = try await Self.request(h, "/conference-action")
        #expect(action.parameters["DialCallStatus"] == "completed")
        #expect(action.parameters["CallStatus"] == "completed")
        await alice.close()
        await h.stop()
    }

    /// Twilio answers a call whose first verb is `<Hangup>`, then completes it: the caller hears
    /// `connected`, then `hangup`, and the call is `completed` (it was `canceled` before).
    @Test func aHangupFirstAnswersThenCompletes() async throws {
        let h = try await VoiceHarness.start()
        let app = try h.makeApplication()
        h.app.set("/voice", "<Response><Hangup/></Response>")
        let alice = try TestParty(try await h.client("alice", application: app.sid))
        let callSid = try await alice.invite(to: "anyone")
        try await alice.expectConnected()  // answered, whether or not the media is up yet
        let hangup = try await alice.expectHangup()
        #expect(hangup.code == nil)
        let record = try #require(try h.store.call(sid: callSid))
        #expect(record.status == .completed)
        #expect(record.answerTime != nil)
        #expect(record.errorCode == nil)
        await alice.close()
        await h.stop()
    }

    /// The first request the app received on `path`, waiting up to 10 s for it.
    static func request(_ h: VoiceHarness, _ path: String) async throws -> TwiMLTestApp.Request {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let request = h.app.requests(path).first { return request }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("no request to \(path)")
    }
}
