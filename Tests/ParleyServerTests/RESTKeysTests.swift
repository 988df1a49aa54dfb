import AccessToken
import Foundation
import HTTPWire
import JSONWire
import ParleyServer
import ParleyStore
import Testing
import VoiceREST

/// `Keys.json` and `Keys/{SK}.json`: the vendor's Keys resource over the store, auth token only.
@Suite struct RESTKeysTests {
    @Test func createListFetchAndDeleteWithTheAuthToken() async throws {
        let f = try RESTFixture()
        let auth = RESTFixture.basic(f.account.sid, f.account.authToken)
        let created = await f.post("\(f.accountPath)/Keys.json", [("FriendlyName", "CI key")], headers: auth)
        #expect(created.status == 201)
        let key = created.jsonObject
        let sid = try #require(key.string("sid"))
        #expect(SID.isValid(sid, prefix: "SK"))
        #expect(key.string("friendly_name") == "CI key")
        #expect(key.string("secret")?.count == 32)
        #expect(key.string("date_created")?.hasSuffix("+0000") == true)
        // The new key works at once, for REST and for tokens.
        let secret = try #require(key.string("secret"))
        #expect(await f.get("\(f.accountPath)/Calls.json", headers: RESTFixture.basic(sid, secret)).status == 200)

        let listed = await f.get("\(f.accountPath)/Keys.json", headers: auth)
        #expect(listed.status == 200)
        guard case .array(let items)? = listed.jsonObject["keys"] else { Issue.record("no keys array"); return }
        let sids = items.compactMap { $0.objectValue?.string("sid") }
        #expect(sids == [f.key.sid, sid])
        #expect(!listed.bodyText.contains(secret), "a list never shows secrets")

        let fetched = await f.get("\(f.accountPath)/Keys/\(sid).json", headers: auth)
        #expect(fetched.status == 200 && fetched.jsonObject.string("sid") == sid && fetched.jsonObject["secret"] == nil)

        let deleted = await f.router.handle(HTTPRequest(method: "DELETE", target: "\(f.accountPath)/Keys/\(sid).json", headers: auth))
        #expect(deleted.status == 204)
        #expect(try f.store.apiKey(sid: sid)?.revoked == true)
        // Gone: 404 on fetch and delete, not listed, and its credentials no longer authenticate.
        #expect(await f.get("\(f.accountPath)/Keys/\(sid).json", headers: auth).status == 404)
        let again = await f.router.handle(HTTPRequest(method: "DELETE", target: "\(f.accountPath)/Keys/\(sid).json", headers: auth))
        #expect(again.status == 404)
        #expect(await f.get("\(f.accountPath)/Keys.json", headers: auth).bodyText.contains(sid) == false)
        #expect(await f.get("\(f.accountPath)/Calls.json", headers: RESTFixture.basic(sid, secret)).status == 401)
    }

    @Test func anAPIKeyCannotManageKeys() async throws {
        let f = try RESTFixture()
        for (method, path) in [("GET", "Keys.json"), ("POST", "Keys.json"), ("GET", "Keys/\(f.key.sid).json"),
                               ("DELETE", "Keys/\(f.key.sid).json")] {
            let response = await f.router.handle(HTTPRequest(method: method, target: "\(f.accountPath)/\(path)", headers: f.keyAuth))
            #expect(response.status == 403, "\(method) \(path)")
            #expect(response.jsonObject.int("code") == 20403)
        }
        #expect(try f.store.apiKey(sid: f.key.sid)?.revoked == false)
    }

    @Test func foreignAndMalformedKeysAre404AndOtherMethods405() async throws {
        let f = try RESTFixture()
        let auth = RESTFixture.basic(f.account.sid, f.account.authToken)
        let other = try f.store.createAccount(friendlyName: "other")
        let foreign = try f.store.createAPIKey(accountSid: other.sid, friendlyName: "theirs")
        #expect(await f.get("\(f.accountPath)/Keys/\(foreign.sid).json", headers: auth).status == 404)
        let delete = await f.router.handle(HTTPRequest(method: "DELETE", target: "\(f.accountPath)/Keys/\(foreign.sid).json",
                                                       headers: auth))
        #expect(delete.status == 404)
        #expect(try f.store.apiKey(sid: foreign.sid)?.revoked == false)
        #expect(await f.get("\(f.accountPath)/Keys/nonsense.json", headers: auth).status == 404)
        let put = await f.router.handle(HTTPRequest(method: "PUT", target: "\(f.accountPath)/Keys.json", headers: auth))
        #expect(put.status == 405)
        let long = await f.post("\(f.accountPath)/Keys.json", [("FriendlyName", String(repeating: "k", count: 65))], headers: auth)
        #expect(long.status == 400)
    }
}
