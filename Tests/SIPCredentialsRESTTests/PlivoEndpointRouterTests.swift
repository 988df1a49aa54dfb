import Foundation
import JSONWire
import ParleyStore
import SIPCredentialsREST
import Testing

/// The Plivo-shaped Endpoint API in process: shapes, auth by auth ID, validation, no secrets out.
@Suite struct PlivoEndpointRouterTests {
    @Test func createListGetUpdateDelete() async throws {
        let f = try SIPRESTFixture()
        let app = try f.store.createApplication(ApplicationDraft(friendlyName: "ivr", voiceURL: "https://app.example/ivr"),
                                                accountSid: f.account.sid)
        let (status, created) = await f.plivo("POST", "/Endpoint/", #"{"username":"alice","password":"s3cret-pass","alias":"Alice","app_id":"\#(app.sid)"}"#)
        #expect(status == 201)
        #expect(created["message"]?.string == "created")
        let username = try #require(created["username"]?.string)
        let id = try #require(created["endpoint_id"]?.string)
        #expect(username.hasPrefix("alice") && username.count == 17 && username.dropFirst(5).allSatisfy(\.isNumber))
        #expect(id.count == 14 && id.allSatisfy(\.isNumber))
        #expect(created["api_id"]?.string != nil)
        #expect(created["password"] == nil)

        let (getStatus, fetched) = await f.plivo("GET", "/Endpoint/\(id)/")
        #expect(getStatus == 200)
        #expect(fetched["alias"]?.string == "Alice")
        #expect(fetched["sip_uri"]?.string == "sip:\(username)@sip.parley.test")
        #expect(fetched["application"]?.string == "/v1/Account/\(f.account.authID)/Application/\(app.sid)/")
        #expect(fetched["resource_uri"]?.string == "/v1/Account/\(f.account.authID)/Endpoint/\(id)/")
        #expect(fetched["password"] == nil)
        // The store keeps the digest secret for the configured realm, never the password.
        let stored = try #require(try f.store.endpoint(id: id))
        #expect(stored.secret == SIPDigestSecret(username: username, realm: "parley.test", password: "s3cret-pass"))

        let (updateStatus, updated) = await f.plivo("POST", "/Endpoint/\(id)/", #"{"alias":"Alice B","password":"an0ther-pass","app_id":""}"#)
        #expect(updateStatus == 202)
        #expect(updated["message"]?.string == "changed")
        let after = try #require(try f.store.endpoint(id: id))
        #expect(after.alias == "Alice B" && after.applicationSid == nil)
        #expect(after.secret.matches(username: username, password: "an0ther-pass"))

        _ = await f.plivo("POST", "/Endpoint/", #"{"username":"bob","password":"s3cret-pass","alias":"Bob"}"#)
        let (_, page) = await f.plivo("GET", "/Endpoint/?limit=1&offset=0")
        #expect(page["meta"]?["total_count"] == .integer(2))
        #expect(page["meta"]?["next"]?.string == "/v1/Account/\(f.account.authID)/Endpoint/?limit=1&offset=1")
        #expect(page["objects"]?.array.count == 1)

        let (deleteStatus, _) = await f.plivo("DELETE", "/Endpoint/\(id)/")
        #expect(deleteStatus == 204)
        let (goneStatus, gone) = await f.plivo("GET", "/Endpoint/\(id)/")
        #expect(goneStatus == 404)
        #expect(gone["error"]?.string == "not found")
    }

    @Test func refusesBadCredentialsAndBadInput() async throws {
        let f = try SIPRESTFixture()
        #expect(await f.plivo("GET", "/Endpoint/", auth: "\(f.account.authID):wrong").0 == 401)
        #expect(await f.plivo("GET", "/Endpoint/", auth: "\(f.account.sid):\(f.account.authToken)").0 == 401)
        let other = try f.store.createAccount(friendlyName: "other")
        #expect(await f.plivo("GET", "/Endpoint/", auth: "\(other.authID):\(other.authToken)").0 == 401)

        let bad = [#"{"username":"al ice","password":"s3cret-pass","alias":"A"}"#, #"{"username":"alice","password":"short","alias":"A"}"#,
                   #"{"username":"alice","password":"s3cret-pass"}"#, #"{"username":"alice","password":"s3cret-pass","alias":"A","app_id":"AP00"}"#,
                   #"["not","an","object"]"#, #"{"username":{"x":1},"password":"s3cret-pass","alias":"A"}"#, "{"]
        for body in bad {
            let (status, answer) = await f.plivo("POST", "/Endpoint/", body)
            #expect(status == 400, "\(body)")
            #expect(answer["error"]?.string != nil)
        }
        #expect(await f.plivo("GET", "/Endpoint/?limit=21").0 == 400)
        #expect(await f.plivo("PUT", "/Endpoint/").0 == 405)
        #expect(await f.plivo("GET", "/Call/").0 == 404)
        #expect(try f.store.endpoints(accountSid: f.account.sid).isEmpty)

        // Another account's endpoint is not found.
        let theirs = try f.store.createEndpoint(accountSid: other.sid, username: "eve", password: "s3cret-pass", realm: "parley.test",
                                                alias: "Eve", applicationSid: nil)
        #expect(await f.plivo("GET", "/Endpoint/\(theirs.id)/").0 == 404)
        #expect(await f.plivo("DELETE", "/Endpoint/\(theirs.id)/").0 == 404)
    }
}
