import AccessToken
import Foundation
import HTTPWire
import JSONWire
import ParleyNet
import ParleyServer
import ParleyStore
import Testing

/// `POST/GET /v1/insights`, `POST /v1/feedback` and the REST `Calls/{CA}/Insights.json` over a
/// running server: events stored per account and served per call, malformed bodies refused with
/// 31400 (nothing stored), token failures, and feedback validation.
@Suite struct InsightsEndpointTests {
    static let callA = "CA" + String(repeating: "a", count: 32)

    struct Client {
        let h: VoiceHarness
        let http: HTTPClient

        func send(_ method: String, _ target: String, token: String?, body: String? = nil,
                  headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
            var request = HTTPRequest(method: method, target: target, headers: headers, body: Array((body ?? "").utf8))
            if let token { request.headers.set("Authorization", "Bearer \(token)") }
            if body != nil { request.headers.set("Content-Type", "application/json") }
            return try await http.send(request, to: h.baseURL + target)
        }

        func events(_ target: String, token: String) async throws -> [JSONObject] {
            let response = try await send("GET", target, token: token)
            #expect(response.status == 200)
            return response.jsonObject.array("events")
        }
    }

    static func event(_ name: String, at ms: Int64, call: String? = callA, level: String = "info",
                      payload: String = "{}") -> String {
        let sid = call.map { #""call_sid": "\#($0)", "# } ?? ""
        return #"{"group": "connection", "name": "\#(name)", "level": "\#(level)", \#(sid)"timestamp": \#(ms), "payload": \#(payload)}"#
    }

    @Test func postedEventsAreServedPerCallOverBearerAndREST() async throws {
        let h = try await VoiceHarness.start()
        defer { Task { await h.stop() } }
        let c = Client(h: h, http: try HTTPClient())
        let alice = try h.token("alice")
        let batch = [Self.event("outgoing", at: 1_700_000_000_100, payload: #"{"to": "bob", "nested": {"n": 1}}"#),
                     Self.event("error", at: 1_700_000_000_300, level: "error", payload: #"{"code": "31480"}"#),
                     Self.event("codec", at: 1_700_000_000_200),
                     Self.event("registration", at: 1_700_000_000_000, call: nil)]
        let posted = try await c.send("POST", "/v1/insights", token: alice, body: #"{"events": [\#(batch.joined(separator: ","))]}"#)
        #expect(posted.status == 202 && posted.jsonObject.int("stored") == 4)

        let call = try await c.events("/v1/insights?call_sid=\(Self.callA)", token: alice)
        #expect(call.map { $0.string("name") } == ["outgoing", "codec", "error"])
        #expect(call.map { $0.int("timestamp") } == [1_700_000_000_100, 1_700_000_000_200, 1_700_000_000_300])
        #expect(call[0]["payload"] == .object(["to": .string("bob"), "nested": .object(["n": .integer(1)])]))
        #expect(call[2].string("level") == "error" && call[2].string("identity") == "alice")
        #expect(call[0].string("account_sid") == h.credentials.account.sid && call[0].string("call_sid") == Self.callA)
        // Without call_sid: the caller's own events; another identity of the account sees none of them.
        #expect(try await c.events("/v1/insights", token: alice).map { $0.string("name") }
                == ["registration", "outgoing", "codec", "error"])
        #expect(try await c.events("/v1/insights", token: try h.token("bob")).isEmpty)
        // Paging.
        let page = try await c.send("GET", "/v1/insights?call_sid=\(Self.callA)&page_size=2", token: alice)
        #expect(page.jsonObject.array("events").count == 2 && page.jsonObject.int("next_offset") == 2)
        let last = try await c.send("GET", "/v1/insights?call_sid=\(Self.callA)&page_size=2&offset=2", token: alice)
        #expect(last.jsonObject.array("events").map { $0.string("name") } == ["error"] && last.jsonObject.isNull("next_offset"))

        // The REST resource (Basic auth), with the list envelope.
        let key = h.credentials.apiKey
        let auth: HTTPHeaders = ["Authorization": "Basic " + Data("\(key.sid):\(key.secret)".utf8).base64EncodedString()]
        let path = "/2010-04-01/Accounts/\(h.credentials.account.sid)/Calls/\(Self.callA)/Insights.json"
        let rest = try await c.send("GET", path, token: nil, headers: auth)
        #expect(rest.status == 200)
        #expect(rest.jsonObject.array("events").map { $0.string("name") } == ["outgoing", "codec", "error"])
        #expect(rest.jsonObject.int("page_size") == 50 && rest.jsonObject.isNull("next_page_uri"))
        let restPage = try await c.send("GET", path + "?PageSize=1", token: nil, headers: auth)
        #expect(restPage.jsonObject.array("events").map { $0.string("name") } == ["outgoing"])
        #expect(restPage.jsonObject.string("next_page_uri")?.contains("PageToken=PA1") == true)
        #expect(try await c.send("GET", path, token: nil).status == 401)
        #expect(try await c.send("POST", path, token: nil, headers: auth).status == 405)
    }

    @Test(arguments: [
        ("not json", "send {\"events\""),
        (#"{"events": []}"#, "1 to 100"),
        (#"{"events": [42]}"#, "events[0] must be an object"),
        (#"{"events": [{"name": "x", "level": "info", "timestamp": 1}]}"#, "events[0].group"),
        (#"{"events": [{"group": "a b", "name": "x", "level": "info", "timestamp": 1}]}"#, "events[0].group"),
        (#"{"events": [{"group": "g", "name": "", "level": "info", "timestamp": 1}]}"#, "events[0].name"),
        (#"{"events": [{"group": "g", "name": "x", "level": "fatal", "timestamp": 1}]}"#, "events[0].level"),
        (#"{"events": [{"group": "g", "name": "x", "level": "info", "timestamp": "now"}]}"#, "events[0].timestamp"),
        (#"{"events": [{"group": "g", "name": "x", "level": "info", "timestamp": -5}]}"#, "events[0].timestamp"),
        (#"{"events": [{"group": "g", "name": "x", "level": "info", "timestamp": 1, "call_sid": "CA12"}]}"#, "events[0].call_sid"),
        (#"{"events": [{"group": "g", "name": "x", "level": "info", "timestamp": 1, "payload": [1]}]}"#, "events[0].payload"),
    ])
    func malformedBatchesAreRefusedWhole(body: String, reason: String) async throws {
        let h = try await VoiceHarness.start()
        defer { Task { await h.stop() } }
        let c = Client(h: h, http: try HTTPClient())
        let alice = try h.token("alice")
        var cases = [(body, reason)]
        if reason.hasPrefix("events[0]") {
            // A valid event ahead of the bad one: the batch is refused whole, the reason names index 1.
            cases.append((body.replacingOccurrences(of: #"{"events": ["#, with: #"{"events": [\#(Self.event("ok", at: 1)), "#),
                          reason.replacingOccurrences(of: "[0]", with: "[1]")))
        }
        for (text, expected) in cases {
            let response = try await c.send("POST", "/v1/insights", token: alice, body: text)
            #expect(response.status == 400)
            #expect(response.jsonObject.int("code") == 31400)
            #expect(response.jsonObject.string("reason")?.contains(expected) == true, "\(text)")
        }
        #expect(try await c.events("/v1/insights", token: alice).isEmpty)
    }

    @Test func limitsTokensAndMethods() async throws {
        let h = try await VoiceHarness.start()
        defer { Task { await h.stop() } }
        let c = Client(h: h, http: try HTTPClient())
        let alice = try h.token("alice")
        let tooMany = (0..<101).map { Self.event("e\($0)", at: 1) }.joined(separator: ",")
        let many = try await c.send("POST", "/v1/insights", token: alice, body: #"{"events": [\#(tooMany)]}"#)
        #expect(many.status == 400 && many.jsonObject.int("code") == 31400)
        let big = Self.event("big", at: 1, payload: #"{"blob": "\#(String(repeating: "x", count: 70_000))"}"#)
        let large = try await c.send("POST", "/v1/insights", token: alice, body: #"{"events": [\#(big)]}"#)
        #expect(large.status == 413 && large.jsonObject.int("code") == 31400)
        let hundred = (0..<100).map { Self.event("e\($0)", at: Int64($0 + 1)) }.joined(separator: ",")
        #expect(try await c.send("POST", "/v1/insights", token: alice, body: #"{"events": [\#(hundred)]}"#).status == 202)

        let anonymous = try await c.send("POST", "/v1/insights", token: nil, body: #"{"events": [\#(Self.event("x", at: 1))]}"#)
        #expect(anonymous.status == 401 && anonymous.jsonObject.int("code") == 20101)
        #expect(try await c.send("GET", "/v1/insights", token: "junk").status == 401)
        // A video grant is enough (the video SDK's room events); a token with neither grant is not.
        #expect(try await c.send("GET", "/v1/insights", token: try h.token("alice", voice: false)).status == 200)
        let neither = try AccessTokenBuilder.mint(accountSid: h.credentials.account.sid, apiKeySid: h.credentials.apiKey.sid,
                                                  apiSecret: h.credentials.apiKey.secret, identity: "alice", ttl: 600, grants: [],
                                                  now: Int64(Date().timeIntervalSince1970))
        let refused = try await c.send("GET", "/v1/insights", token: neither)
        #expect(refused.status == 403 && refused.jsonObject.int("code") == 31403)
        #expect(try await c.send("GET", "/v1/insights?call_sid=CA1", token: alice).status == 400)
        #expect(try await c.send("GET", "/v1/insights?page_size=0", token: alice).status == 400)
        let method = try await c.send("DELETE", "/v1/insights", token: alice)
        #expect(method.status == 405 && method.headers["Allow"] == "GET, POST")
        #expect(try await c.send("GET", "/v1/feedback", token: alice).status == 405)
        #expect(try await c.events("/v1/insights?page_size=1000", token: alice).count == 100)
    }

    @Test func feedbackIsValidatedAndStoredAsAnEvent() async throws {
        let h = try await VoiceHarness.start()
        defer { Task { await h.stop() } }
        let c = Client(h: h, http: try HTTPClient())
        let alice = try h.token("alice")
        try h.store.insertCall(CallRecord(sid: Self.callA, accountSid: h.credentials.account.sid, from: "client:alice",
                                          to: "client:bob", direction: "outbound-api", status: .completed, startTime: 1,
                                          createdAt: 1, updatedAt: 1))
        let valid = #"{"call_sid": "\#(Self.callA)", "score": 3, "issues": ["echo", "choppy-audio", "echo"]}"#
        let created = try await c.send("POST", "/v1/feedback", token: alice, body: valid)
        #expect(created.status == 201)
        #expect(created.jsonObject.string("group") == "feedback" && created.jsonObject.string("name") == "received")
        #expect(created.jsonObject["payload"] == .object(["score": .integer(3),
                                                          "issues": .array([.string("echo"), .string("choppy-audio")])]))
        let issuesOnly = #"{"call_sid": "\#(Self.callA)", "issues": ["one-way-audio"]}"#
        #expect(try await c.send("POST", "/v1/feedback", token: alice, body: issuesOnly).status == 201)

        let refused: [String] = [
            #"{"score": 3}"#,
            #"{"call_sid": "CA1", "score": 3}"#,
            #"{"call_sid": "\#(Self.callA)", "score": 0}"#,
            #"{"call_sid": "\#(Self.callA)", "score": 6}"#,
            #"{"call_sid": "\#(Self.callA)", "score": "3"}"#,
            #"{"call_sid": "\#(Self.callA)", "score": 2, "issues": ["loud"]}"#,
            #"{"call_sid": "\#(Self.callA)", "score": 2, "issues": "echo"}"#,
            #"{"call_sid": "\#(Self.callA)"}"#,
            "[]",
        ]
        for body in refused {
            let response = try await c.send("POST", "/v1/feedback", token: alice, body: body)
            #expect(response.status == 400 && response.jsonObject.int("code") == 31400, "\(body)")
        }
        let unknown = #"{"call_sid": "CA\#(String(repeating: "f", count: 32))", "score": 5}"#
        let missing = try await c.send("POST", "/v1/feedback", token: alice, body: unknown)
        #expect(missing.status == 404 && missing.jsonObject.int("code") == 31404)

        let events = try await c.events("/v1/insights?call_sid=\(Self.callA)", token: try h.token("bob"))
        #expect(events.map { $0.string("group") } == ["feedback", "feedback"])
        #expect(events.map { $0.string("identity") } == ["alice", "alice"])
        #expect(events[1]["payload"] == .object(["score": .null, "issues": .array([.string("one-way-audio")])]))
    }
}
