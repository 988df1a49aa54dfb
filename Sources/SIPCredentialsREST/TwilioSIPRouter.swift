import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// The Twilio v2010-shaped SIP API under `/2010-04-01/Accounts/{AC}/SIP/`, so a backend (or the
/// official `twilio` library with only its base URL changed) manages who may use the SIP service:
///
/// - `CredentialLists.json` (GET list, POST `FriendlyName`), `CredentialLists/{CL}.json` (GET,
///   POST `FriendlyName`, DELETE); `CredentialLists/{CL}/Credentials.json` (GET, POST `Username`,
///   `Password`) and `Credentials/{CR}.json` (GET, POST `Password`, DELETE). Passwords are kept as
///   digest hashes and never returned.
/// - `IpAccessControlLists.json`, `IpAccessControlLists/{AL}.json`, and their `IpAddresses.json`
///   (POST `FriendlyName`, `IpAddress`, `CidrPrefixLength`) and `IpAddresses/{IP}.json`.
/// - `Domains.json` (POST `DomainName`, `FriendlyName`, `VoiceUrl`, `VoiceMethod`,
///   `VoiceFallbackUrl`, `VoiceFallbackMethod`, `VoiceStatusCallbackUrl`,
///   `VoiceStatusCallbackMethod`, `SipRegistration`, `Secure`), `Domains/{SD}.json` (GET, POST, DELETE).
/// - `Domains/{SD}/Auth/Registrations/CredentialListMappings.json`,
///   `Domains/{SD}/Auth/Calls/CredentialListMappings.json` and
///   `Domains/{SD}/Auth/Calls/IpAccessControlListMappings.json` (GET list, POST
///   `CredentialListSid` or `IpAccessControlListSid`) and `…/{CL|AL}.json` (GET, DELETE): a
///   mapping's SID is its list's, as the vendor's.
///
/// Auth, errors, paging and dates are those of the rest of the v2010 API (`RESTAuthenticator`,
/// `RESTFailure`, `RESTPaging`, RFC 2822). Validation errors carry the vendor's SIP codes: 21232
/// (domain name), 21231 (other domain parameters, duplicate mappings), 21240 (credential lists),
/// 21243 (credentials); IP access control lists and addresses answer 20001.
public struct TwilioSIPRouter: Sendable {
    static let apiRoot = "/2010-04-01/Accounts/"

    let store: any PlatformStore
    let settings: SIPCredentialSettings
    let authenticator: RESTAuthenticator

    public init(store: any PlatformStore, settings: SIPCredentialSettings) {
        self.store = store
        self.settings = settings
        authenticator = RESTAuthenticator(store: store)
    }

    /// True for `/2010-04-01/Accounts/{AccountSid}/SIP/…`; other v2010 paths are the voice router's.
    public static func matches(_ path: String) -> Bool {
        guard path.hasPrefix(apiRoot) else { return false }
        let rest = path.dropFirst(apiRoot.count).split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        return rest.count == 3 && rest[1] == "SIP"
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        do { return try route(request) } catch { return error.response }
    }

    func admit(_ head: HTTPRequest) -> HTTPResponse? {
        do {
            _ = try authenticator.authenticate(head, accountSid: try Self.segments(head.path).accountSid)
            return nil
        } catch {
            return error.response
        }
    }

    /// The account SID and the segments after `SIP`.
    private static func segments(_ path: String) throws(RESTFailure) -> (accountSid: String, rest: [String]) {
        let parts = path.dropFirst(apiRoot.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[1] == "SIP", !parts.contains("") else { throw .notFound(path) }
        return (parts[0], Array(parts.dropFirst(2)))
    }

    /// What a resource handler needs.
    struct Context {
        let request: HTTPRequest
        let parameters: RESTParameters
        let account: Account
        var method: String { request.method }
        var path: String { request.path }
        /// `/2010-04-01/Accounts/{AC}/SIP`, the base of every `uri`.
        var base: String { "\(TwilioSIPRouter.apiRoot)\(account.sid)/SIP" }
    }

    private func route(_ request: HTTPRequest) throws(RESTFailure) -> HTTPResponse {
        let (accountSid, rest) = try Self.segments(request.path)
        let (account, _) = try authenticator.authenticate(request, accountSid: accountSid)
        let c = Context(request: request, parameters: try RESTParameters(request), account: account)
        let path = request.path
        switch rest.first {
        case "CredentialLists.json" where rest.count == 1: return try lists(c, kind: .credentials)
        case "IpAccessControlLists.json" where rest.count == 1: return try lists(c, kind: .ipAddresses)
        case "Domains.json" where rest.count == 1: return try domains(c)
        case "CredentialLists", "IpAccessControlLists":
            let kind: SIPListKind = rest[0] == "CredentialLists" ? .credentials : .ipAddresses
            let entries = kind == .credentials ? "Credentials" : "IpAddresses"
            guard rest.count >= 2 else { throw .notFound(path) }
            if rest.count == 2 { return try list(c, try findList(c, kind, try Self.sid(rest[1], path: path))) }
            let list = try findList(c, kind, rest[1])
            switch rest.count {
            case 3 where rest[2] == entries + ".json": return try entriesOf(c, list)
            case 4 where rest[2] == entries: return try entry(c, list, sid: try Self.sid(rest[3], path: path))
            default: throw .notFound(path)
            }
        case "Domains":
            guard rest.count >= 2 else { throw .notFound(path) }
            if rest.count == 2 { return try domain(c, try findDomain(c, try Self.sid(rest[1], path: path))) }
            let domain = try findDomain(c, rest[1])
            guard rest.count >= 5, rest[2] == "Auth", let kind = Self.mappingKind(rest[3], rest[4]) else { throw .notFound(path) }
            switch rest.count {
            case 5 where rest[4].hasSuffix(".json"): return try mappings(c, domain, kind)
            case 6 where !rest[4].hasSuffix(".json"): return try mapping(c, domain, kind, listSid: try Self.sid(rest[5], path: path))
            default: throw .notFound(path)
            }
        default:
            throw .notFound(path)
        }
    }

    /// `Registrations`/`Calls` and `CredentialListMappings[.json]`/`IpAccessControlListMappings[.json]`.
    private static func mappingKind(_ auth: String, _ collection: String) -> SIPMappingKind? {
        let name = collection.hasSuffix(".json") ? String(collection.dropLast(5)) : collection
        switch (auth, name) {
        case ("Registrations", "CredentialListMappings"): return .registrationCredentials
        case ("Calls", "CredentialListMappings"): return .callCredentials
        case ("Calls", "IpAccessControlListMappings"): return .callIPAccessControl
        default: return nil
        }
    }

    // MARK: Lookups

    func findList(_ c: Context, _ kind: SIPListKind, _ sid: String) throws(RESTFailure) -> SIPList {
        guard let list = try PlatformCore.storeCall({ () throws(StoreError) in try store.sipList(sid: sid) }),
              list.accountSid == c.account.sid, list.kind == kind else { throw .notFound(c.path) }
        return list
    }

    func findDomain(_ c: Context, _ sid: String) throws(RESTFailure) -> SIPDomain {
        guard let domain = try PlatformCore.storeCall({ () throws(StoreError) in try store.sipDomain(sid: sid) }),
              domain.accountSid == c.account.sid else { throw .notFound(c.path) }
        return domain
    }

    // MARK: Helpers

    /// The SID in a `{Sid}.json` segment.
    static func sid(_ segment: String, path: String) throws(RESTFailure) -> String {
        guard segment.hasSuffix(".json"), segment.count > 5 else { throw .notFound(path) }
        return String(segment.dropLast(5))
    }

    static func allow(_ c: Context, _ methods: String) throws(RESTFailure) {
        let allowed = methods.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard allowed.contains(c.method) else { throw .methodNotAllowed(c.method, allow: methods) }
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse { .json(value.serialized(), status: status) }

    static func failure(_ code: ParleyError.Code, _ message: String) -> RESTFailure {
        RESTFailure(status: 400, code: code, message: message)
    }

    /// A store call whose `.conflict` and `.limitReached` become 400 with `code` and `.notFound` 20404.
    func storeCall<T>(_ c: Context, code: ParleyError.Code, _ body: () throws(StoreError) -> T) throws(RESTFailure) -> T {
        do {
            return try body()
        } catch {
            switch error {
            case .conflict(let what): throw Self.failure(code, "\(what) already exists")
            case .limitReached(let what): throw Self.failure(code, "limit reached: \(what)")
            case .notFound: throw .notFound(c.path)
            default: throw .store(error)
            }
        }
    }

    /// One page of `records` (already whole and ordered) under `key`.
    static func page(_ c: Context, key: String, _ records: [JSONValue]) throws(RESTFailure) -> HTTPResponse {
        let paging = try RESTPaging(c.parameters)
        let (slice, hasMore) = paging.slice(records)
        return json(paging.envelope(key: key, records: Array(slice), hasMore: hasMore, path: c.path, filters: []))
    }
}

/// The SIP API as one of the platform router's endpoints: HTTP Basic instead of access tokens.
extension TwilioSIPRouter: APIEndpoint {
    package func matches(_ path: String) -> Bool { Self.matches(path) }
    package func admit(_ head: HTTPRequest, router: APIRouter) async -> HTTPResponse? { admit(head) }
    package func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse { await handle(request) }
}
