import HTTPWire
import JSONWire
import ParleyCore
import ParleyCrypto
import ParleyStore
import PlatformCore

/// The Plivo-shaped Endpoint API, so a backend written for Plivo (or the official `plivo` library
/// with its base URL pointed here) manages the server's SIP endpoints:
///
/// - `POST /v1/Account/{auth_id}/Endpoint/` creates one (`username`, `password`, `alias`, `app_id`):
///   201 with `username` (the given one plus 12 digits, as Plivo's), `alias`, `endpoint_id`.
/// - `GET …/Endpoint/` lists them (`limit` 1–20, `offset`; `meta` as Plivo's).
/// - `GET …/Endpoint/{endpoint_id}/` fetches one; `POST` updates `alias`, `password`, `app_id`
///   (202); `DELETE` removes it (204).
///
/// `app_id` names one of the account's applications (`AP…`, the Twilio-shaped Applications API):
/// Parley has no separate Plivo Application API. Passwords are never returned, not even hashed.
/// Auth is HTTP Basic with the account's auth ID (`MA…`) and auth token. Bodies are JSON objects
/// of strings, as the library sends them; query parameters work too.
public struct PlivoEndpointRouter: Sendable {
    /// The path prefix this router serves.
    public static let root = "/v1/Account/"

    let store: any PlatformStore
    let settings: SIPCredentialSettings

    public init(store: any PlatformStore, settings: SIPCredentialSettings) {
        self.store = store
        self.settings = settings
    }

    public static func matches(_ path: String) -> Bool { path.hasPrefix(root) }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        do { return try route(request) } catch { return error.response }
    }

    /// The refusal for a request whose credentials do not hold, decided from its head.
    func admit(_ head: HTTPRequest) -> HTTPResponse? {
        do {
            _ = try authenticate(head, authID: try Self.segments(head.path).authID)
            return nil
        } catch {
            return error.response
        }
    }

    /// `{auth_id}` and the segments after it (`Endpoint`, `{id}`), the trailing slash optional.
    private static func segments(_ path: String) throws(PlivoFailure) -> (authID: String, rest: [String]) {
        var parts = path.dropFirst(root.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.last == "" { parts.removeLast() }
        guard let authID = parts.first, !authID.isEmpty, !parts.contains("") else { throw .notFound() }
        return (authID, Array(parts.dropFirst()))
    }

    /// The account whose auth ID is in the path, if the Basic credentials are its auth ID and token.
    private func authenticate(_ request: HTTPRequest, authID: String) throws(PlivoFailure) -> Account {
        guard let (user, password) = RESTAuthenticator.basicCredentials(request), user == authID,
              let account = try plivoStoreCall({ () throws(StoreError) in try store.account(authID: authID) }),
              !account.authToken.isEmpty, ConstantTime.equals(Array(account.authToken.utf8), Array(password.utf8)) else {
            let who = SID.isValidAuthID(authID) ? authID : "a malformed auth ID"
            Log.info(.platform, "Plivo API request with bad credentials for \(who)")
            throw .authentication()
        }
        return account
    }

    private func route(_ request: HTTPRequest) throws(PlivoFailure) -> HTTPResponse {
        let (authID, rest) = try Self.segments(request.path)
        let account = try authenticate(request, authID: authID)
        guard rest.first == "Endpoint" else { throw .notFound() }
        let parameters = try Self.parameters(request)
        switch (rest.count, request.method) {
        case (1, "POST"): return try create(account, parameters)
        case (1, "GET"): return try list(account, parameters)
        case (2, "GET"): return Self.json(PlivoEndpointJSON.endpoint(try find(account, rest[1]), authID: authID, settings: settings))
        case (2, "POST"): return try update(account, try find(account, rest[1]), parameters)
        case (2, "DELETE"):
            let id = try find(account, rest[1]).id
            _ = try plivoStoreCall { () throws(StoreError) in try store.deleteEndpoint(id: id) }
            return .status(204)
        case (1, _), (2, _): throw .methodNotAllowed(request.method)
        default: throw .notFound()
        }
    }

    private func create(_ account: Account, _ p: RESTParameters) throws(PlivoFailure) -> HTTPResponse {
        guard let username = p["username"], let password = p["password"], let alias = p["alias"] else {
            throw .invalid("username, password and alias are required")
        }
        if let reason = SIPInputRules.endpointUsername(username) ?? SIPInputRules.endpointPassword(password)
            ?? SIPInputRules.name(alias, field: "alias", limit: 100) { throw .invalid(reason) }
        let applicationSid = try application(account, p["app_id"])
        let endpoint = try plivoStoreCall { () throws(StoreError) in
            try store.createEndpoint(accountSid: account.sid, username: username, password: password, realm: settings.realm,
                                     alias: alias, applicationSid: applicationSid)
        }
        Log.info(.platform, "created SIP endpoint \(endpoint.id) (\(endpoint.username)) for \(account.sid)")
        var body = PlivoFailure.envelope()
        body["alias"] = .string(endpoint.alias)
        body["endpoint_id"] = .string(endpoint.id)
        body["message"] = .string("created")
        body["username"] = .string(endpoint.username)
        return Self.json(.object(body), status: 201)
    }

    private func list(_ account: Account, _ p: RESTParameters) throws(PlivoFailure) -> HTTPResponse {
        let limit = try Self.integer(p, "limit", default: 20, in: 1...20)
        let offset = try Self.integer(p, "offset", default: 0, in: 0...1_000_000)
        let all = try plivoStoreCall { () throws(StoreError) in try store.endpoints(accountSid: account.sid) }
        let page = all.dropFirst(offset).prefix(limit)
        let path = "\(Self.root)\(account.authID)/Endpoint/"
        func link(_ offset: Int) -> JSONValue { .string("\(path)?limit=\(limit)&offset=\(offset)") }
        var body = PlivoFailure.envelope()
        body["meta"] = .object([
            "limit": .integer(Int64(limit)),
            "next": offset + limit < all.count ? link(offset + limit) : .null,
            "offset": .integer(Int64(offset)),
            "previous": offset > 0 ? link(max(offset - limit, 0)) : .null,
            "total_count": .integer(Int64(all.count)),
        ])
        body["objects"] = .array(page.map { PlivoEndpointJSON.endpoint($0, authID: account.authID, settings: settings) })
        return Self.json(.object(body))
    }

    private func update(_ account: Account, _ found: SIPEndpoint, _ p: RESTParameters) throws(PlivoFailure) -> HTTPResponse {
        var endpoint = found
        if let alias = p["alias"] {
            if let reason = SIPInputRules.name(alias, field: "alias", limit: 100) { throw .invalid(reason) }
            endpoint.alias = alias
        }
        if let password = p["password"] {
            if let reason = SIPInputRules.endpointPassword(password) { throw .invalid(reason) }
            endpoint.secret = SIPDigestSecret(username: endpoint.username, realm: settings.realm, password: password)
        }
        if p.contains("app_id") { endpoint.applicationSid = try application(account, p["app_id"]) }
        _ = try plivoStoreCall { () throws(StoreError) in try store.updateEndpoint(endpoint) }
        var body = PlivoFailure.envelope()
        body["message"] = .string("changed")
        return Self.json(.object(body), status: 202)
    }

    /// The endpoint `id` of `account`; 404 otherwise (another account's endpoint is not found either).
    private func find(_ account: Account, _ id: String) throws(PlivoFailure) -> SIPEndpoint {
        guard id.utf8.count <= 32, let endpoint = try plivoStoreCall({ () throws(StoreError) in try store.endpoint(id: id) }),
              endpoint.accountSid == account.sid else { throw .notFound() }
        return endpoint
    }

    /// `app_id`: nil or empty clears it; otherwise one of the account's applications.
    private func application(_ account: Account, _ appID: String?) throws(PlivoFailure) -> String? {
        guard let appID, !appID.isEmpty else { return nil }
        guard SID.isValid(appID, prefix: "AP"),
              let app = try plivoStoreCall({ () throws(StoreError) in try store.application(sid: appID) }),
              app.accountSid == account.sid else {
            throw .invalid("app_id must name one of this account's applications (AP…)")
        }
        return app.sid
    }

    /// The request's query, plus its body: a JSON object whose members are strings (numbers and
    /// booleans are taken as their text), as the `plivo` library sends them.
    static func parameters(_ request: HTTPRequest) throws(PlivoFailure) -> RESTParameters {
        var pairs = request.queryItems
        guard !request.body.isEmpty else { return RESTParameters(pairs) }
        guard let object = (try? JSONValue.parse(request.body, maxDepth: 4))?.objectValue, object.count <= 64 else {
            throw .invalid("the body must be a JSON object")
        }
        for key in object.keys {
            switch object[key] {
            case .string(let s)?: pairs.append((key, s))
            case .integer(let n)?: pairs.append((key, String(n)))
            case .bool(let b)?: pairs.append((key, b ? "true" : "false"))
            case .null?: continue
            default: throw .invalid("\(key) must be a string")
            }
        }
        return RESTParameters(pairs)
    }

    private static func integer(_ p: RESTParameters, _ name: String, default value: Int, in range: ClosedRange<Int>) throws(PlivoFailure) -> Int {
        guard let text = p[name] else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw .invalid("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse { .json(value.serialized(), status: status) }
}

/// The Plivo API as one of the platform router's endpoints: Basic auth with the auth ID.
extension PlivoEndpointRouter: APIEndpoint {
    package func matches(_ path: String) -> Bool { Self.matches(path) }
    package func admit(_ head: HTTPRequest, router: APIRouter) async -> HTTPResponse? { admit(head) }
    package func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse { await handle(request) }
}
