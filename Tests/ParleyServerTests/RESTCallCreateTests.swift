import Foundation
import HTTPWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing
import TwiML
import VoiceREST

/// `TwilioRESTRouter`: creating calls, inline TwiML on live calls, deleting calls, and the fields
/// the vendor fills that Parley can.
@Suite struct RESTCallCreateTests {
    @Test func createValidatesLikeTheVendorAndReachesTheEngine() async throws {
        let f = try RESTFixture()
        let path = "\(f.accountPath)/Calls.json"
        let base = [("To", "client:bob"), ("From", "+15550001111")]
        func code(_ form: [(String, String)]) async -> Int64? {
            let response = await f.post(path, form)
            #expect(response.status == 400, "\(form): \(response.status) \(response.bodyText)")
            return response.jsonObject.int("code")
        }
        #expect(await code([("From", "x"), ("Url", "https://a.example/v")]) == 21201)
        #expect(await code([("To", "client:bob"), ("Url", "https://a.example/v")]) == 21213)
        #expect(await code([("To", "bob"), ("From", "x"), ("Url", "https://a.example/v")]) == 21211)
        #expect(await code([("To", "+1 555 CALL NOW"), ("From", "x"), ("Url", "https://a.example/v")]) == 21211)
        #expect(await code([("To", "client:"), ("From", "x"), ("Url", "https://a.example/v")]) == 21211)
        #expect(await code(base) == 21205)
        #expect(await code(base + [("Url", "ftp://a.example/v")]) == 21205)
        #expect(await code(base + [("Twiml", "<Response><Say>" + String(repeating: "a", count: 4000) + "</Say></Response>")]) == 32018)
        #expect(await code(base + [("Twiml", "<Response><Say>unclosed</Response>")]) == 12100)
        #expect(await code(base + [("Twiml", "<Response><Enqueue>support</Enqueue></Response>")]) == 12200)
        #expect(await code(base + [("ApplicationSid", SID.make("AP"))]) == 21218)
        #expect(await code(base + [("Url", "https://a.example/v"), ("Timeout", "0")]) == 20001)
        #expect(await code(base + [("Url", "https://a.example/v"), ("StatusCallbackEvent", "exploded")]) == 20001)
        #expect(await code(base + [("Url", "https://a.example/v"), ("SendDigits", "12a")]) == 20001)
        #expect(await code(base + [("Url", "https://a.example/v"), ("SendDigits", String(repeating: "1", count: 33))]) == 20001)
        #expect(await code([("To", "+1 (555) 12-3+4"), ("From", "x"), ("Url", "https://a.example/v")]) == 21211)
        #expect(f.control.actions.isEmpty)

        // Url (with the vendor's repeated StatusCallbackEvent), inline Twiml, an application.
        let created = await f.post(path, base + [("Url", "https://a.example/v"), ("Method", "GET"), ("Timeout", "15"),
                                                 ("StatusCallback", "https://a.example/status"),
                                                 ("StatusCallbackEvent", "initiated"), ("StatusCallbackEvent", "answered completed")])
        #expect(created.status == 201 && created.jsonObject.string("direction") == "outbound-api")
        #expect(created.jsonObject.string("to") == "client:bob" && created.jsonObject.string("status") == "queued")
        _ = await f.post(path, base + [("Twiml", "<Response><Say>hi</Say></Response>"), ("Url", "")])
        let app = try f.store.createApplication(ApplicationDraft(friendlyName: "out", voiceURL: "https://app.example/voice",
                                                                 statusCallback: "https://app.example/cb",
                                                                 statusCallbackMethod: "GET"), accountSid: f.account.sid)
        _ = await f.post(path, base + [("ApplicationSid", app.sid)])
        let account = f.account.sid
        #expect(f.control.actions == [
            .create(OutboundCallRequest(accountSid: account, to: "client:bob", from: "+15550001111",
                                        instructions: .url("https://a.example/v", method: "GET"),
                                        statusCallback: "https://a.example/status",
                                        statusCallbackEvents: ["initiated", "answered", "completed"], timeout: 15)),
            .create(OutboundCallRequest(accountSid: account, to: "client:bob", from: "+15550001111",
                                        instructions: .twiml(try TwiMLResponse(parsing: "<Response><Say>hi</Say></Response>")))),
            .create(OutboundCallRequest(accountSid: account, to: "client:bob", from: "+15550001111",
                                        instructions: .url("https://app.example/voice", method: "POST"), applicationSid: app.sid,
                                        statusCallback: "https://app.example/cb", statusCallbackMethod: "GET")),
        ])
        // Without an engine nothing can be placed.
        let detached = try RESTFixture(live: false)
        let refused = await detached.post("\(detached.accountPath)/Calls.json", base + [("Url", "https://a.example/v")])
        #expect(refused.status == 400 && refused.jsonObject.int("code") == 21220)
    }

    @Test func inlineTwimlReachesALiveCallAndUrlWins() async throws {
        let f = try RESTFixture()
        let live = try f.insertCall(start: 1_800_000_000, status: .inProgress)
        f.control.setLive(live.sid)
        let path = "\(f.accountPath)/Calls/\(live.sid).json"
        let twiml = "<Response><Play>https://cdn.example/hold.wav</Play></Response>"
        let replaced = await f.post(path, [("Twiml", twiml)])
        #expect(replaced.status == 200 && replaced.jsonObject.string("sid") == live.sid)
        #expect(await f.post(path, [("Twiml", twiml), ("Url", "https://app.example/next")]).status == 200)
        #expect(f.control.actions == [.replaceTwiML(live.sid, try TwiMLResponse(parsing: twiml)),
                                      .redirect(live.sid, "https://app.example/next", "POST")])
        let broken = await f.post(path, [("Twiml", "<Response><Dial><Client>bob</Dial></Response>")])
        #expect(broken.status == 400 && broken.jsonObject.int("code") == 12100)

        // `canceled` does not touch an answered call (the vendor's rule); `completed` hangs it up.
        #expect(await f.post(path, [("Status", "canceled")]).status == 200)
        #expect(f.control.actions.count == 2)
        // A call created over REST that still rings: hang-ups stop the ringing first; Url/Twiml wait for the answer.
        let ringing = try f.store.insertOutbound(account: f.account.sid)
        f.control.setLive(ringing.sid)
        let ringingPath = "\(f.accountPath)/Calls/\(ringing.sid).json"
        let early = await f.post(ringingPath, [("Twiml", twiml)])
        #expect(early.status == 400 && early.jsonObject.int("code") == 21220)
        #expect(await f.post(ringingPath, [("Status", "canceled")]).status == 200)
        #expect(f.control.actions.suffix(2) == [.cancelRinging(ringing.sid), .hangUp(ringing.sid, "canceled")])
    }

    @Test func deletingACallRecord() async throws {
        let f = try RESTFixture()
        let done = try f.insertCall(start: 1_800_000_000, status: .completed)
        let live = try f.insertCall(start: 1_800_000_100, status: .inProgress)
        let gone = await f.delete("\(f.accountPath)/Calls/\(done.sid).json")
        #expect(gone.status == 204 && gone.body.isEmpty)
        #expect(await f.get("\(f.accountPath)/Calls/\(done.sid).json").status == 404)
        #expect(await f.delete("\(f.accountPath)/Calls/\(done.sid).json").status == 404)
        let refused = await f.delete("\(f.accountPath)/Calls/\(live.sid).json")
        #expect(refused.status == 409 && refused.jsonObject.int("code") == 20009)
        #expect(try f.store.call(sid: live.sid) != nil)
    }

    @Test func forwardedFromAndCallerNameAreFilled() async throws {
        let f = try RESTFixture()
        let parent = try f.insertCall(start: 1_800_000_000, from: "client:alice", to: "support")
        let child = try f.insertCall(start: 1_800_000_001, from: "client:alice", to: "client:bob", parent: parent.sid)
        let phone = try f.insertCall(start: 1_800_000_002, from: "+15550001111", to: "client:bob")
        let one = await f.get("\(f.accountPath)/Calls/\(child.sid).json").jsonObject
        #expect(one.string("forwarded_from") == "support" && one.string("caller_name") == "alice")
        let list = await f.get("\(f.accountPath)/Calls.json").jsonObject.array("calls")
        let bySid = Dictionary(uniqueKeysWithValues: list.map { ($0.string("sid") ?? "", $0) })
        #expect(bySid[parent.sid]?.isNull("forwarded_from") == true && bySid[parent.sid]?.string("caller_name") == "alice")
        #expect(bySid[child.sid]?.string("forwarded_from") == "support")
        #expect(bySid[phone.sid]?.isNull("caller_name") == true)
    }
}

extension InMemoryAccountStore {
    /// A call created over REST that is still ringing.
    func insertOutbound(account: String) throws -> CallRecord {
        let call = CallRecord(sid: SID.make("CA"), accountSid: account, from: "+15550001111", to: "client:bob",
                              direction: "outbound-api", status: .ringing, startTime: 1_800_000_000,
                              createdAt: 1_800_000_000, updatedAt: 1_800_000_000)
        try insertCall(call)
        return call
    }
}
