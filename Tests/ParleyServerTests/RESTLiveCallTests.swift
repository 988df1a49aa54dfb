import Foundation
import HTTPWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Signaling
import Testing

/// The Calls REST API against the in-process engine: inline TwiML on a live call, calls created
/// over REST ringing a client identity, and the one rule for calls that are over.
@Suite(.serialized) struct RESTLiveCallTests {
    /// A caller of `/voice` (whose first verb waits), connected; returns its call SID.
    static func caller(_ h: VoiceHarness, _ parties: OpenParties, _ twiml: String) async throws -> (TestParty, String) {
        h.app.set("/voice", twiml)
        let application = try h.makeApplication(path: "/voice")
        let alice = parties.add(try TestParty(try await h.client("alice", application: application.sid)))
        let sid = try await alice.invite(to: "app")
        try await alice.connectMedia()
        return (alice, sid)
    }

    @Test func inlineTwimlReplacesTheDocumentOfALiveCall() async throws {
        try await VoiceHarness.run { h, parties in
            let (alice, sid) = try await Self.caller(h, parties, #"<Response><Pause length="30"/></Response>"#)
            h.app.set("/next", "<Response><Hangup/></Response>")
            try await h.waitForRequests("/voice")

            let broken = try await h.rest("POST", "/Calls/\(sid).json", [("Twiml", "<Response><Pause></Response>")])
            #expect(broken.status == 400 && broken.jsonObject.int("code") == 12100)
            // The relative URL resolves against the document it replaces (…/voice → …/next).
            let replaced = try await h.rest("POST", "/Calls/\(sid).json",
                                            [("Twiml", #"<Response><Redirect method="GET">next</Redirect></Response>"#)])
            #expect(replaced.status == 200, "\(replaced.bodyText)")
            let next = try await h.waitForRequests("/next")
            #expect(next.first?.method == "GET" && next.first?.parameters["CallSid"] == sid && next.first?.signatureValid == true)
            _ = try await alice.expectHangup()
            let ended = try await h.waitForCall(sid) { $0.status.isFinal }
            // <Pause> and <Redirect> do not answer; the <Hangup> does, then completes (as Twilio).
            #expect(ended?.status == .completed)

            // Over: every update is 21220, and now it can be deleted.
            for form in [[("Status", "completed")], [("Twiml", "<Response><Hangup/></Response>")]] {
                let refused = try await h.rest("POST", "/Calls/\(sid).json", form)
                #expect(refused.status == 400 && refused.jsonObject.int("code") == 21220, "\(form)")
            }
            #expect(try await h.rest("DELETE", "/Calls/\(sid).json").status == 204)
            #expect(try h.store.call(sid: sid) == nil)
        }
    }

    @Test func aLiveCallCannotBeDeleted() async throws {
        try await VoiceHarness.run { h, parties in
            let (alice, sid) = try await Self.caller(h, parties, #"<Response><Pause length="30"/></Response>"#)
            let refused = try await h.rest("DELETE", "/Calls/\(sid).json")
            #expect(refused.status == 409 && refused.jsonObject.int("code") == 20009)
            // `canceled` leaves a call alone once answered; this one is not, so it ends.
            #expect(try await h.rest("POST", "/Calls/\(sid).json", [("Status", "canceled")]).status == 200)
            _ = try await alice.expectHangup()
            #expect(try await h.waitForCall(sid) { $0.status.isFinal }?.status == .canceled)
        }
    }

    @Test func aCallCreatedOverRESTRingsTheClientAndRunsItsTwimlOnAnswer() async throws {
        try await VoiceHarness.run { h, parties in
            let bob = parties.add(try TestParty(try await h.client("bob", listen: true)))
            h.app.set("/greet", #"<Response><Pause length="1"/><Hangup/></Response>"#)
            h.app.set("/status", "<Response/>")
            let created = try await h.rest("POST", "/Calls.json", [
                ("To", "client:bob"), ("From", "+15550001111"), ("Url", h.app.baseURL + "/greet"),
                ("StatusCallback", h.app.baseURL + "/status"), ("StatusCallbackEvent", "initiated"),
                ("StatusCallbackEvent", "ringing"), ("StatusCallbackEvent", "answered"), ("StatusCallbackEvent", "completed"),
            ])
            #expect(created.status == 201, "\(created.bodyText)")
            let sid = try #require(created.jsonObject.string("sid"))
            #expect(created.jsonObject.string("direction") == "outbound-api" && created.jsonObject.string("status") == "ringing")

            let incoming = try await bob.expectIncoming()
            #expect(incoming.callSid == sid && incoming.from == "+15550001111" && incoming.to == "client:bob")
            #expect(h.app.requests("/greet").isEmpty)  // nothing is fetched before the answer
            try await bob.accept(sid)
            try await bob.expectConnected()
            let greet = try await h.waitForRequests("/greet")
            #expect(greet.first?.parameters["Direction"] == "outbound-api" && greet.first?.parameters["CallStatus"] == "in-progress")
            #expect(greet.first?.parameters["From"] == "+15550001111" && greet.first?.signatureValid == true)
            _ = try await bob.expectHangup()  // the TwiML's <Hangup/>
            let done = try await h.waitForCall(sid) { $0.status.isFinal }
            #expect(done?.status == .completed && done?.answerTime != nil && done?.direction == "outbound-api")
            let statuses = try await h.waitForRequests("/status", count: 4).compactMap { $0.parameters["CallStatus"] }
            #expect(statuses == ["initiated", "ringing", "in-progress", "completed"])
        }
    }

    @Test func aCallCreatedOverRESTThatIsNotAnswered() async throws {
        try await VoiceHarness.run { h, parties in
            let bob = parties.add(try TestParty(try await h.client("bob", listen: true)))
            func create(_ extra: [(String, String)] = []) async throws -> String {
                let created = try await h.rest("POST", "/Calls.json", [("To", "client:bob"), ("From", "client:app"),
                                                                       ("Twiml", "<Response><Hangup/></Response>")] + extra)
                #expect(created.status == 201, "\(created.bodyText)")
                return try #require(created.jsonObject.string("sid"))
            }
            func cancelled(_ sid: String) async throws -> Int {
                try await bob.signaling.expect("cancelled") { if case .cancelled(let c) = $0, c.callSid == sid { c.code } else { nil } }
            }

            // Timeout: no-answer, the client's invite cancelled with 31408.
            let late = try await create([("Timeout", "1")])
            _ = try await bob.expectIncoming()
            #expect(try await cancelled(late) == 31408)
            #expect(try await h.waitForCall(late) { $0.status.isFinal }?.status == .noAnswer)

            // Cancelled over REST while ringing (inline TwiML waits for the answer: 21220 before it).
            let dropped = try await create()
            _ = try await bob.expectIncoming()
            let early = try await h.rest("POST", "/Calls/\(dropped).json", [("Twiml", "<Response><Hangup/></Response>")])
            #expect(early.status == 400 && early.jsonObject.int("code") == 21220)
            #expect(try await h.rest("POST", "/Calls/\(dropped).json", [("Status", "completed")]).status == 200)
            #expect(try await cancelled(dropped) == 31487)
            let row = try await h.waitForCall(dropped) { $0.status.isFinal }
            #expect(row?.status == .canceled && row?.errorCode == 31487)

            // Rejected busy by the client.
            let busy = try await create()
            _ = try await bob.expectIncoming()
            try await bob.signaling.send(.reject(Reject(callSid: busy, reason: .busy)))
            #expect(try await h.waitForCall(busy) { $0.status.isFinal }?.status == .busy)

            // Nobody listens for carol and she has no push binding: failed at once, 31480.
            let unreachable = try await h.rest("POST", "/Calls.json", [("To", "client:carol"), ("From", "+15550001111"),
                                                                       ("Url", h.app.baseURL + "/never")])
            #expect(unreachable.status == 201 && unreachable.jsonObject.string("status") == "failed")
            let carolSid = try #require(unreachable.jsonObject.string("sid"))
            #expect(try h.store.call(sid: carolSid)?.errorCode == 31480)
        }
    }
}
