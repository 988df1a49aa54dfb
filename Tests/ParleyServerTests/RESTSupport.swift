import Foundation
import HTTPWire
import JSONWire
import ParleyServer
import ParleyStore
import ParleyTestSupport
import VoiceREST

/// A `TwilioRESTRouter` over an in-memory store with a default account and key, driven in-process.
struct RESTFixture {
    let store: InMemoryAccountStore
    let control: CallControlRecorder
    let router: TwilioRESTRouter
    let account: Account
    let key: APIKey

    init(live: Bool = true, now: Int64 = 1_800_000_000) throws {
        store = InMemoryAccountStore(now: { now })
        let defaults = try store.ensureDefaultAccount()
        account = defaults.account
        key = defaults.apiKey
        control = CallControlRecorder()
        router = TwilioRESTRouter(store: store, calls: live ? control : nil, publicBaseURL: { "https://voice.example.com/" })
    }

    var accountPath: String { "/2010-04-01/Accounts/\(account.sid)" }

    /// Basic auth with the default API key.
    var keyAuth: HTTPHeaders { Self.basic(key.sid, key.secret) }

    static func basic(_ user: String, _ password: String) -> HTTPHeaders {
        ["Authorization": "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }

    func get(_ target: String, headers: HTTPHeaders? = nil) async -> HTTPResponse {
        await router.handle(HTTPRequest(method: "GET", target: target, headers: headers ?? keyAuth))
    }

    func post(_ target: String, _ form: [(String, String)], headers: HTTPHeaders? = nil) async -> HTTPResponse {
        var h = headers ?? keyAuth
        h.set("Content-Type", "application/x-www-form-urlencoded")
        let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return await router.handle(HTTPRequest(method: "POST", target: target, headers: h, body: Array(body.utf8)))
    }

    func delete(_ target: String) async -> HTTPResponse {
        await router.handle(HTTPRequest(method: "DELETE", target: target, headers: keyAuth))
    }

    static func encode(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s
    }

    /// Inserts a call row of the default account.
    @discardableResult
    func insertCall(start: Int64, status: CallStatus = .completed, from: String = "client:alice",
                    to: String = "client:bob", parent: String? = nil) throws -> CallRecord {
        let call = CallRecord(sid: SID.make("CA"), accountSid: account.sid, parentCallSid: parent, from: from, to: to,
                              direction: parent == nil ? "inbound" : "outbound-dial", status: status, startTime: start,
                              answerTime: status == .completed ? start + 2 : nil,
                              endTime: status.isFinal ? start + 32 : nil, duration: status == .completed ? 30 : nil,
                              createdAt: start, updatedAt: start)
        try store.insertCall(call)
        return call
    }
}

extension HTTPResponse {
    /// The body as a JSON object (empty if it is not one).
    var jsonObject: JSONObject { (try? JSONValue.parse(body, maxDepth: 16).objectValue) ?? [:] }
}

extension JSONObject {
    func string(_ key: String) -> String? { self[key]?.stringValue }
    func int(_ key: String) -> Int64? { if case .integer(let n)? = self[key] { return n } else { return nil } }
    func array(_ key: String) -> [JSONObject] {
        if case .array(let items)? = self[key] { return items.compactMap(\.objectValue) }
        return []
    }
    func isNull(_ key: String) -> Bool { self[key] == .null }
}
