import AccessToken
import HTTPWire
import ParleyServer
import ParleyStore
import Testing
import VoiceREST

/// `TwilioRESTRouter`: authentication, errors and the Applications resource.
@Suite struct RESTRouterTests {
    @Test func matchesOnlyTheVersionedRoot() {
        #expect(TwilioRESTRouter.matches("/2010-04-01"))
        #expect(TwilioRESTRouter.matches("/2010-04-01/Accounts/AC1/Calls.json"))
        #expect(!TwilioRESTRouter.matches("/2010-04-012"))
        #expect(!TwilioRESTRouter.matches("/v1/me"))
    }

    @Test func acceptsAPIKeysAndTheAuthToken() async throws {
        let f = try RESTFixture()
        let byKey = await f.get("\(f.accountPath).json")
        #expect(byKey.status == 200)
        #expect(byKey.jsonObject.string("sid") == f.account.sid)
        #expect(byKey.jsonObject.isNull("auth_token"))
        #expect(!byKey.bodyText.contains(f.account.authToken))
        let byToken = await f.get("\(f.accountPath)/Calls.json", headers: RESTFixture.basic(f.account.sid, f.account.authToken))
        #expect(byToken.status == 200)
    }

    @Test func rejectsBadCredentialsWith20003() async throws {
        let f = try RESTFixture()
        let other = try f.store.createAccount(friendlyName: "Globex")
        let otherKey = try f.store.createAPIKey(accountSid: other.sid, friendlyName: "k")
        let revoked = try f.store.createAPIKey(accountSid: f.account.sid, friendlyName: "old")
        try f.store.revokeAPIKey(sid: revoked.sid)
        let cases: [HTTPHeaders] = [
            [:],
            ["Authorization": "Bearer abc"],
            ["Authorization": "Basic !!!not-base64"],
            RESTFixture.basic(f.key.sid, "wrong-secret"),
            RESTFixture.basic(f.key.sid, f.key.secret + "x"),
            RESTFixture.basic(revoked.sid, revoked.secret),
            RESTFixture.basic(f.account.sid, "0123456789abcdef0123456789abcdef"),
            RESTFixture.basic(f.account.sid, f.key.secret),
            RESTFixture.basic(otherKey.sid, otherKey.secret),                 // valid, but for another account
            RESTFixture.basic(other.sid, other.authToken),
            RESTFixture.basic("someone", "else"),
        ]
        for headers in cases {
            let response = await f.get("\(f.accountPath)/Applications.json", headers: headers)
            #expect(response.status == 401, "\(headers)")
            #expect(response.jsonObject.int("code") == 20003)
            #expect(response.jsonObject.string("message") == "Authenticate")
            #expect(response.jsonObject.int("status") == 401)
            #expect(response.jsonObject.string("more_info") == "https://www.twilio.com/docs/errors/20003")
            #expect(response.headers["WWW-Authenticate"] == "Basic realm=\"Parley\"")
        }
        // The other account's credentials work on its own URL.
        let own = await f.get("/2010-04-01/Accounts/\(other.sid)/Applications.json",
                              headers: RESTFixture.basic(otherKey.sid, otherKey.secret))
        #expect(own.status == 200)
        // A rotated auth token stops working at once.
        let rotated = try f.store.rotateAuthToken(accountSid: f.account.sid)
        let stale = await f.get("\(f.accountPath).json", headers: RESTFixture.basic(f.account.sid, f.account.authToken))
        #expect(stale.status == 401)
        let fresh = await f.get("\(f.accountPath).json", headers: RESTFixture.basic(f.account.sid, rotated.authToken))
        #expect(fresh.status == 200)
    }

    @Test func unknownPathsAndMethodsAnswerInTheVendorShape() async throws {
        let f = try RESTFixture()
        let missing = await f.get("\(f.accountPath)/Queues.json")
        #expect(missing.status == 404)
        #expect(missing.jsonObject.int("code") == 20404)
        #expect(missing.jsonObject.string("message") == "The requested resource \(f.accountPath)/Queues.json was not found")
        #expect(await f.get("/2010-04-01/Nothing.json").status == 404)
        #expect(await f.get("\(f.accountPath)/Calls/\(SID.make("CA"))").status == 404)  // no .json
        let delete = await f.delete("\(f.accountPath)/Calls.json")
        #expect(delete.status == 405)
        #expect(delete.jsonObject.int("code") == 20004)
        #expect(delete.headers["Allow"] == "GET, POST")
        let json = await f.router.handle(HTTPRequest(method: "POST", target: "\(f.accountPath)/Applications.json",
                                                     headers: ["Authorization": f.keyAuth["Authorization"]!,
                                                               "Content-Type": "application/json"],
                                                     body: Array("{}".utf8)))
        #expect(json.status == 400 && json.jsonObject.int("code") == 20001)
    }

    @Test func applicationsCreateFetchUpdateDelete() async throws {
        let f = try RESTFixture()
        let created = await f.post("\(f.accountPath)/Applications.json", [
            ("FriendlyName", "Main app"), ("VoiceUrl", "https://app.example.com/voice?x=1&y=2"), ("VoiceMethod", "get"),
            ("StatusCallback", "http://app.example.com/status"),
        ])
        #expect(created.status == 201)
        let app = created.jsonObject
        let sid = try #require(app.string("sid"))
        #expect(SID.isValid(sid, prefix: "AP"))
        #expect(app.string("account_sid") == f.account.sid && app.string("friendly_name") == "Main app")
        #expect(app.string("voice_url") == "https://app.example.com/voice?x=1&y=2" && app.string("voice_method") == "GET")
        #expect(app.string("status_callback") == "http://app.example.com/status")
        #expect(app.string("status_callback_method") == "POST")
        #expect(app.string("api_version") == "2010-04-01")
        #expect(app.string("date_created") == "Fri, 15 Jan 2027 08:00:00 +0000")
        #expect(app.string("uri") == "\(f.accountPath)/Applications/\(sid).json")

        let fetched = await f.get("\(f.accountPath)/Applications/\(sid).json")
        #expect(fetched.status == 200 && fetched.jsonObject == app)

        let updated = await f.post("\(f.accountPath)/Applications/\(sid).json",
                                   [("FriendlyName", "Renamed"), ("VoiceUrl", ""), ("StatusCallbackMethod", "GET")])
        #expect(updated.status == 200)
        #expect(updated.jsonObject.string("friendly_name") == "Renamed")
        #expect(updated.jsonObject.isNull("voice_url") && updated.jsonObject.string("voice_method") == "GET")
        #expect(updated.jsonObject.string("status_callback") == "http://app.example.com/status")
        #expect(updated.jsonObject.string("status_callback_method") == "GET")
        #expect(try f.store.application(sid: sid)?.friendlyName == "Renamed")

        #expect(await f.delete("\(f.accountPath)/Applications/\(sid).json").status == 204)
        #expect(await f.delete("\(f.accountPath)/Applications/\(sid).json").status == 404)
        let gone = await f.get("\(f.accountPath)/Applications/\(sid).json")
        #expect(gone.status == 404 && gone.jsonObject.int("code") == 20404)
    }

    @Test func applicationInputIsValidated() async throws {
        let f = try RESTFixture()
        let path = "\(f.accountPath)/Applications.json"
        for form in [[("VoiceUrl", "ftp://x/y")], [("VoiceUrl", "not a url")], [("VoiceMethod", "PUT")],
                     [("StatusCallbackMethod", "DELETE")], [("FriendlyName", String(repeating: "n", count: 65))]] {
            let response = await f.post(path, form)
            #expect(response.status == 400, "\(form)")
            #expect(response.jsonObject.int("code") == 20001)
        }
        #expect(try f.store.applications(accountSid: f.account.sid, friendlyName: nil).isEmpty)
    }

    @Test func applicationsListFiltersAndPages() async throws {
        let f = try RESTFixture()
        for i in 0..<5 {
            _ = try f.store.createApplication(ApplicationDraft(friendlyName: i % 2 == 0 ? "even" : "odd"), accountSid: f.account.sid)
        }
        let other = try f.store.createAccount(friendlyName: "Globex")
        let foreign = try f.store.createApplication(ApplicationDraft(friendlyName: "even"), accountSid: other.sid)

        let page0 = await f.get("\(f.accountPath)/Applications.json?PageSize=2").jsonObject
        #expect(page0.array("applications").count == 2)
        #expect(page0.int("page") == 0 && page0.int("page_size") == 2 && page0.int("start") == 0 && page0.int("end") == 1)
        #expect(page0.isNull("previous_page_uri"))
        #expect(page0.string("first_page_uri") == "\(f.accountPath)/Applications.json?PageSize=2&Page=0")
        let next = try #require(page0.string("next_page_uri"))
        #expect(next == "\(f.accountPath)/Applications.json?PageSize=2&Page=1&PageToken=PA2")
        let page1 = await f.get(next).jsonObject
        #expect(page1.int("start") == 2 && page1.string("previous_page_uri") != nil)
        let page2 = await f.get(try #require(page1.string("next_page_uri"))).jsonObject
        #expect(page2.array("applications").count == 1 && page2.isNull("next_page_uri"))

        let even = await f.get("\(f.accountPath)/Applications.json?FriendlyName=even").jsonObject
        #expect(even.array("applications").map { $0.string("friendly_name") } == ["even", "even", "even"])
        #expect(await f.get("\(f.accountPath)/Applications/\(foreign.sid).json").status == 404)

        let bad = await f.get("\(f.accountPath)/Applications.json?PageSize=zero")
        #expect(bad.status == 400 && bad.jsonObject.int("code") == 20001)
        #expect(await f.get("\(f.accountPath)/Applications.json?PageToken=XYZ").status == 400)
        #expect(await f.get("\(f.accountPath)/Applications.json?PageToken=PA9223372036854775807").status == 400)
        #expect(await f.get("\(f.accountPath)/Calls.json?Page=99999999999999999999").status == 400)
    }
}
