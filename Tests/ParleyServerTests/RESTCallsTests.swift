import Foundation
import HTTPWire
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing
import VoiceREST

/// `TwilioRESTRouter`: the Calls and Recordings resources.
@Suite struct RESTCallsTests {
    @Test func callResourceHasTheVendorFields() async throws {
        let f = try RESTFixture()
        let parent = try f.insertCall(start: 1_283_286_988)
        let child = try f.insertCall(start: 1_283_286_990, status: .inProgress, to: "client:carol", parent: parent.sid)
        let json = await f.get("\(f.accountPath)/Calls/\(parent.sid).json").jsonObject
        #expect(json.string("sid") == parent.sid && json.string("account_sid") == f.account.sid)
        #expect(json.string("from") == "client:alice" && json.string("to") == "client:bob")
        #expect(json.string("from_formatted") == "client:alice" && json.string("to_formatted") == "client:bob")
        #expect(json.string("status") == "completed" && json.string("direction") == "inbound")
        #expect(json.string("start_time") == "Tue, 31 Aug 2010 20:36:28 +0000")
        #expect(json.string("end_time") == "Tue, 31 Aug 2010 20:37:00 +0000")
        #expect(json.string("duration") == "30")
        #expect(json.isNull("answered_by") && json.isNull("price") && json.isNull("parent_call_sid"))
        #expect(json.string("api_version") == "2010-04-01")
        #expect(json.string("date_created") == "Tue, 31 Aug 2010 20:36:28 +0000")
        #expect(json.string("uri") == "\(f.accountPath)/Calls/\(parent.sid).json")
        #expect(json["subresource_uris"]?.objectValue?.string("recordings") == "\(f.accountPath)/Calls/\(parent.sid)/Recordings.json")

        let live = await f.get("\(f.accountPath)/Calls/\(child.sid).json").jsonObject
        #expect(live.string("parent_call_sid") == parent.sid && live.string("direction") == "outbound-dial")
        #expect(live.isNull("end_time") && live.isNull("duration") && live.string("status") == "in-progress")

        let unknown = "\(f.accountPath)/Calls/\(SID.make("CA")).json"
        let missing = await f.get(unknown)
        #expect(missing.status == 404 && missing.jsonObject.int("code") == 20404)
        #expect(missing.jsonObject.string("message") == "The requested resource \(unknown) was not found")
    }

    @Test func callListPagesNewestFirstAndKeepsFilters() async throws {
        let f = try RESTFixture()
        var calls: [CallRecord] = []
        for i in 0..<7 { calls.append(try f.insertCall(start: 1_800_000_000 + Int64(i) * 60, to: i % 2 == 0 ? "client:bob" : "client:carol")) }
        let newestFirst = calls.reversed().map(\.sid)

        var seen: [String] = []
        var target: String? = "\(f.accountPath)/Calls.json?PageSize=3"
        var pages = 0
        while let t = target {
            let page = await f.get(t).jsonObject
            #expect(page.int("page") == Int64(pages) && page.int("page_size") == 3 && page.int("start") == Int64(pages * 3))
            seen += page.array("calls").compactMap { $0.string("sid") }
            #expect(page.int("end") == Int64(seen.count - 1))
            #expect(pages == 0 ? page.isNull("previous_page_uri") : page.string("previous_page_uri") != nil)
            target = page.string("next_page_uri")
            pages += 1
        }
        #expect(pages == 3 && seen == newestFirst)

        // Filters survive into next_page_uri.
        let bob = await f.get("\(f.accountPath)/Calls.json?To=client%3Abob&PageSize=2").jsonObject
        let next = try #require(bob.string("next_page_uri"))
        #expect(next.contains("To=client%3Abob"))
        let bob2 = await f.get(next).jsonObject
        let bobSids = (bob.array("calls") + bob2.array("calls")).compactMap { $0.string("sid") }
        #expect(bobSids.count == 4)
        let expectedBob = calls.filter { $0.to == "client:bob" }.reversed().prefix(4).map(\.sid)
        #expect(bobSids == Array(expectedBob))
        #expect(await f.get("\(f.accountPath)/Calls.json?PageSize=5000").jsonObject.int("page_size") == 1000)
    }

    @Test func callListFilters() async throws {
        let f = try RESTFixture()
        let day = Int64(1_800_000_000) / 86_400 * 86_400  // 2027-01-15T00:00:00Z
        let a = try f.insertCall(start: day - 60, from: "client:alice")                        // the day before
        let b = try f.insertCall(start: day + 3600, status: .busy, from: "client:bob")
        let c = try f.insertCall(start: day + 7200, status: .inProgress, from: "client:alice", parent: b.sid)
        let d = try f.insertCall(start: day + 86_400 + 5, status: .noAnswer, from: "client:dave", to: "+15551234567")  // next day
        func sids(_ query: String) async -> Set<String> {
            let response = await f.get("\(f.accountPath)/Calls.json?\(query)")
            #expect(response.status == 200, "\(query): \(response.bodyText)")
            return Set(response.jsonObject.array("calls").compactMap { $0.string("sid") })
        }
        #expect(await sids("Status=busy") == [b.sid])
        #expect(await sids("Status=in-progress") == [c.sid])
        #expect(await sids("From=client%3Aalice") == [a.sid, c.sid])
        #expect(await sids("To=%2B15551234567") == [d.sid])
        #expect(await sids("ParentCallSid=\(b.sid)") == [c.sid])
        #expect(await sids("StartTime=2027-01-15") == [b.sid, c.sid])
        #expect(await sids("StartTime>=2027-01-15") == [b.sid, c.sid, d.sid])           // raw `>=`: the name is `StartTime>`
        #expect(await sids("StartTime%3E%3D=2027-01-15") == [b.sid, c.sid, d.sid])
        #expect(await sids("StartTime<=2027-01-15") == [a.sid, b.sid, c.sid])          // raw `<=`: inclusive day
        #expect(await sids("StartTime%3C=2027-01-15T01%3A00%3A00Z") == [a.sid])       // library: strictly before
        #expect(await sids("StartTime%3E=2027-01-15T01%3A00%3A00Z&StartTime%3C=2027-01-15T02%3A00%3A00Z") == [b.sid])
        #expect(await sids("EndTime>=2027-01-15") == [b.sid, d.sid])                  // c has not ended
        #expect(await sids("Status=completed&From=client%3Abob").isEmpty)
        for bad in ["Status=ringing-ish", "StartTime=yesterday", "StartTime%3E=2027-13-01", "Page=-1"] {
            let response = await f.get("\(f.accountPath)/Calls.json?\(bad)")
            #expect(response.status == 400 && response.jsonObject.int("code") == 20001, "\(bad)")
        }
    }

    @Test func updatingALiveCallReachesTheEngine() async throws {
        let f = try RESTFixture()
        let live = try f.insertCall(start: 1_800_000_000, status: .inProgress)
        f.control.setLive(live.sid)
        let path = "\(f.accountPath)/Calls/\(live.sid).json"

        let redirected = await f.post(path, [("Url", "https://app.example.com/next"), ("Method", "GET")])
        #expect(redirected.status == 200 && redirected.jsonObject.string("sid") == live.sid)
        let hung = await f.post(path, [("Status", "completed")])
        #expect(hung.status == 200)
        #expect(f.control.actions == [.redirect(live.sid, "https://app.example.com/next", "GET"), .hangUp(live.sid, "completed")])

        // The engine no longer holds it: 21220.
        let again = await f.post(path, [("Url", "https://app.example.com/next")])
        #expect(again.status == 400 && again.jsonObject.int("code") == 21220)
        let ringing = try f.insertCall(start: 1_800_000_100, status: .ringing)
        f.control.setLive(ringing.sid)
        #expect(await f.post("\(f.accountPath)/Calls/\(ringing.sid).json", [("Status", "canceled")]).status == 200)
        #expect(f.control.actions.last == .hangUp(ringing.sid, "canceled"))
    }

    @Test func updateRefusals() async throws {
        let f = try RESTFixture()
        let ended = try f.insertCall(start: 1_800_000_000, status: .completed)
        let path = "\(f.accountPath)/Calls/\(ended.sid).json"
        // One rule for a call that is over: hanging it up, redirecting it or replacing its TwiML is 21220.
        for form in [[("Status", "completed")], [("Status", "canceled")], [("Url", "https://app.example.com/x")],
                     [("Twiml", "<Response><Hangup/></Response>")]] {
            let response = await f.post(path, form)
            #expect(response.status == 400 && response.jsonObject.int("code") == 21220, "\(form)")
        }
        #expect(f.control.actions.isEmpty)
        for form in [[("Status", "busy")], [("Url", "mailto:x@example.com")], [("Url", "https://a/b"), ("Method", "PATCH")]] {
            let response = await f.post(path, form)
            #expect(response.status == 400 && response.jsonObject.int("code") == 20001, "\(form)")
        }
        #expect(await f.post("\(f.accountPath)/Calls/\(SID.make("CA")).json", [("Status", "completed")]).status == 404)

        // Without a call engine every live update is 21220.
        let detached = try RESTFixture(live: false)
        let call = try detached.insertCall(start: 1_800_000_000, status: .inProgress)
        let response = await detached.post("\(detached.accountPath)/Calls/\(call.sid).json", [("Status", "completed")])
        #expect(response.status == 400 && response.jsonObject.int("code") == 21220)
    }

    @Test func recordingsListFetchAndMedia() async throws {
        let f = try RESTFixture()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-rest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let call = try f.insertCall(start: 1_800_000_000)
        let file = dir.appendingPathComponent("r1.wav")
        let wav: [UInt8] = Array("RIFF\u{24}\0\0\0WAVEfmt ".utf8) + [UInt8](repeating: 7, count: 40)
        try Data(wav).write(to: file)
        let r1 = RecordingRecord(sid: SID.make("RE"), accountSid: f.account.sid, callSid: call.sid, duration: 12, channels: 1,
                                 sampleRate: 8000, status: "completed", filePath: file.path, source: "RecordVerb",
                                 createdAt: 1_800_000_040)
        let r2 = RecordingRecord(sid: SID.make("RE"), accountSid: f.account.sid, callSid: SID.make("CA"), duration: 3,
                                 channels: 2, sampleRate: 8000, status: "completed", filePath: dir.appendingPathComponent("gone.wav").path,
                                 source: "DialVerb", createdAt: 1_800_000_090)
        try f.store.insertRecording(r1)
        try f.store.insertRecording(r2)

        let all = await f.get("\(f.accountPath)/Recordings.json").jsonObject.array("recordings")
        #expect(all.compactMap { $0.string("sid") } == [r2.sid, r1.sid])
        let first = try #require(all.last)
        #expect(first.string("call_sid") == call.sid && first.string("duration") == "12" && first.int("channels") == 1)
        #expect(first.string("source") == "RecordVerb" && first.string("status") == "completed")
        #expect(first.string("media_url") == "https://voice.example.com\(f.accountPath)/Recordings/\(r1.sid)")
        #expect(first.string("uri") == "\(f.accountPath)/Recordings/\(r1.sid).json")

        let byCall = await f.get("\(f.accountPath)/Calls/\(call.sid)/Recordings.json").jsonObject.array("recordings")
        #expect(byCall.compactMap { $0.string("sid") } == [r1.sid])
        #expect(byCall.first?.string("uri") == "\(f.accountPath)/Calls/\(call.sid)/Recordings/\(r1.sid).json")
        let filtered = await f.get("\(f.accountPath)/Recordings.json?CallSid=\(call.sid)").jsonObject.array("recordings")
        #expect(filtered.count == 1)
        let recent = await f.get("\(f.accountPath)/Recordings.json?DateCreated%3E=2027-01-15T08%3A01%3A00Z").jsonObject
        #expect(recent.array("recordings").compactMap { $0.string("sid") } == [r2.sid])

        #expect(await f.get("\(f.accountPath)/Recordings/\(r1.sid).json").jsonObject.string("sid") == r1.sid)
        #expect(await f.get("\(f.accountPath)/Calls/\(call.sid)/Recordings/\(r1.sid).json").jsonObject.string("track") == "both")
        for media in ["\(r1.sid).wav", r1.sid] {
            let response = await f.get("\(f.accountPath)/Recordings/\(media)")
            #expect(response.status == 200 && response.body == wav)
            #expect(response.headers["Content-Type"] == "audio/x-wav")
        }
        #expect(await f.get("\(f.accountPath)/Recordings/\(r1.sid).ogg").status == 404)
        // Not a WAV the server can read: no MP3 of it (RESTRecordingTests has real ones).
        #expect(await f.get("\(f.accountPath)/Recordings/\(r1.sid).mp3").status == 500)
        #expect(await f.get("\(f.accountPath)/Recordings/\(r2.sid).wav").status == 404)  // file missing
        // Media needs no credentials by default (the vendor's default; the SID is the capability)…
        let open = await f.get("\(f.accountPath)/Recordings/\(r1.sid).wav", headers: [:])
        #expect(open.status == 200 && open.body == wav)
        #expect(await f.get("\(f.accountPath)/Recordings/\(r1.sid).json", headers: [:]).status == 401)
        // …unless the server asks for them.
        var strict = f.router
        strict.mediaRequiresAuth = true
        let refused = await strict.handle(HTTPRequest(method: "GET", target: "\(f.accountPath)/Recordings/\(r1.sid).wav"))
        #expect(refused.status == 401)
        let allowed = await strict.handle(HTTPRequest(method: "GET", target: "\(f.accountPath)/Recordings/\(r1.sid)",
                                                      headers: f.keyAuth))
        #expect(allowed.status == 200 && allowed.body == wav)

        let other = try f.store.createAccount(friendlyName: "Globex")
        let otherKey = try f.store.createAPIKey(accountSid: other.sid, friendlyName: "k")
        let foreign = await f.get("/2010-04-01/Accounts/\(other.sid)/Recordings/\(r1.sid).json",
                                  headers: RESTFixture.basic(otherKey.sid, otherKey.secret))
        #expect(foreign.status == 404)
        #expect(await f.get("/2010-04-01/Accounts/\(other.sid)/Recordings/\(r1.sid).wav", headers: [:]).status == 404)
    }
}
