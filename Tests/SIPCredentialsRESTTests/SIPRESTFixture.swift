import Foundation
import HTTPWire
import JSONWire
import ParleyStore
import SIPCredentialsREST

/// Both SIP routers over a fresh in-memory store and one account.
struct SIPRESTFixture {
    let store = InMemoryAccountStore(now: { 1_700_000_000 })
    let twilio: TwilioSIPRouter
    let plivo: PlivoEndpointRouter
    let account: Account

    init() throws {
        let settings = SIPCredentialSettings(realm: "parley.test", sipHost: "sip.parley.test")
        twilio = TwilioSIPRouter(store: store, settings: settings)
        plivo = PlivoEndpointRouter(store: store, settings: settings)
        account = try store.createAccount(friendlyName: "test")
    }

    var sipBase: String { "/2010-04-01/Accounts/\(account.sid)/SIP" }
    var plivoBase: String { "/v1/Account/\(account.authID)" }

    /// A form request to the Twilio-shaped router, with the account's SID and auth token unless `auth` is given.
    func twilio(_ method: String, _ path: String, _ form: [(String, String)] = [], auth: String? = nil) async -> (Int, JSONValue) {
        var headers = Self.basic(auth ?? "\(account.sid):\(account.authToken)")
        var body: [UInt8] = []
        if !form.isEmpty {
            headers.set("Content-Type", "application/x-www-form-urlencoded")
            body = Array(FormURLEncoding.encode(form).utf8)
        }
        let response = await twilio.handle(HTTPRequest(method: method, target: sipBase + path, headers: headers, body: body))
        return (response.status, (try? JSONValue.parse(response.body)) ?? .null)
    }

    /// A JSON request to the Plivo-shaped router, with the account's auth ID and token unless `auth` is given.
    func plivo(_ method: String, _ path: String, _ json: String = "", auth: String? = nil) async -> (Int, JSONValue) {
        var headers = Self.basic(auth ?? "\(account.authID):\(account.authToken)")
        headers.set("Content-Type", "application/json")
        let request = HTTPRequest(method: method, target: plivoBase + path, headers: headers, body: Array(json.utf8))
        let response = await plivo.handle(request)
        return (response.status, (try? JSONValue.parse(response.body)) ?? .null)
    }

    private static func basic(_ credentials: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.set("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString())
        return headers
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? { objectValue?[key] }
    var string: String? { stringValue }
    var array: [JSONValue] { if case .array(let a) = self { a } else { [] } }
}
