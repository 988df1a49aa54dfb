import Foundation
import HTTPWire
import ICE
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// The vendor-compatible REST API under `/2010-04-01/Accounts/{AccountSid}/`, so an existing voice
/// backend (or the official `twilio` library with only its base URL changed) manages Parley:
///
/// - `Accounts/{AC}.json`: GET the account.
/// - `Applications.json`: GET list (`FriendlyName`, paging), POST create. `Applications/{AP}.json`:
///   GET, POST update, DELETE (204).
/// - `Calls.json`: GET list (`Status`, `To`, `From`, `ParentCallSid`, `StartTime[<>=]`,
///   `EndTime[<>=]`, paging); POST creates a call (`To=client:NAME`, a `sip:` URI or a number,
///   which the engine's routes reach; `Url`, `Twiml` or `ApplicationSid`). `Calls/{CA}.json`: GET; POST `Status=completed|canceled` hangs
///   up, `Url` (+`Method`) redirects the live call, `Twiml` replaces its TwiML (a call that is over:
///   21220); DELETE removes a finished call's record (a live one: 20009).
/// - `Conferences.json` (`FriendlyName`, `Status`, paging), `Conferences/{CF}.json` (POST
///   `Status=completed` ends it), `Conferences/{CF}/Participants.json` and `Participants/{CA}.json`
///   (POST `Muted`, `Hold`; DELETE kicks).
/// - `Recordings.json` (`CallSid`, `DateCreated[<>]`, paging), `Calls/{CA}/Recordings.json`,
///   `Recordings/{RE}.json` and `Calls/{CA}/Recordings/{RE}.json` (GET, DELETE); `Recordings/{RE}.wav`
///   (or no extension) downloads the WAV file, `Recordings/{RE}.mp3` an MP3 of it.
/// - `Keys.json`: GET list (paging), POST create (`FriendlyName`; the answer is the only one with
///   the `secret`). `Keys/{SK}.json`: GET, DELETE (204) revokes the key: sessions and echo sessions
///   its tokens opened end within a second (`CredentialWatcher`). Only the account's auth token
///   manages keys (as the vendor's Main credentials): an API key gets 403, 20403.
/// - `Tokens.json`: POST creates a Network Traversal Service token (STUN and TURN servers with
///   TURN credentials, `TwilioRESTRouter+Tokens`).
/// - `IncomingPhoneNumbers.json` (`PhoneNumber`, paging; POST `PhoneNumber`, `VoiceUrl`, …) and
///   `IncomingPhoneNumbers/{PN}.json` (GET, POST update, DELETE): numbers SIP trunks deliver calls for.
/// - `Calls/{CA}/Insights.json`: GET the Insights events and feedback the SDKs reported for the
///   call (paging), oldest first (a Parley resource; the vendor's Voice Insights API is elsewhere).
///
/// Auth is HTTP Basic with an API key SID and secret, or the account SID and auth token, of the
/// account in the URL; anything else is 401 with code 20003. Errors use the vendor's JSON shape
/// (`RESTFailure`). Request bodies are `application/x-www-form-urlencoded`.
public struct TwilioRESTRouter: Sendable {
    /// The path prefix this router serves.
    public static let root = "/2010-04-01"

    let store: any PlatformStore
    let calls: (any LiveCallControl)?
    let publicBaseURL: @Sendable () -> String
    let authenticator: RESTAuthenticator
    /// Whether downloading a recording's audio (`Recordings/{RE}` or `.wav`) needs credentials. Off
    /// by default, as on the vendor's platform, so apps fetch the `RecordingUrl` they are given
    /// unchanged: the 128-bit random SID is the capability. The JSON resources always need auth.
    public var mediaRequiresAuth = false
    /// The STUN and TURN servers `Tokens.json` hands out (Network Traversal Service); nil: none.
    public var iceServers: ICEServerIssuer?

    /// - Parameters:
    ///   - store: accounts, keys, applications, calls and recordings.
    ///   - calls: the call engine for `POST Calls.json` and `POST Calls/{CA}.json`; nil answers those with 21220.
    ///   - publicBaseURL: the server's external base URL (`https://voice.example.com`), read per
    ///     request, for absolute URLs such as a recording's `media_url`.
    public init(store: any PlatformStore, calls: (any LiveCallControl)?, publicBaseURL: @escaping @Sendable () -> String) {
        self.store = store
        self.calls = calls
        self.publicBaseURL = publicBaseURL
        authenticator = RESTAuthenticator(store: store)
    }

    /// True for paths under `/2010-04-01`.
    public static func matches(_ path: String) -> Bool { path == root || path.hasPrefix(root + "/") }

    /// Answers one request; never throws (failures become the vendor's error JSON).
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        do {
            return try await route(request)
        } catch {
            return error.response
        }
    }

    /// The refusal for a request whose credentials do not hold, decided from its head before its
    /// body is read (`APIRouter.admit`); nil lets it through to `handle`.
    package func admit(_ head: HTTPRequest) -> HTTPResponse? {
        do {
            let (_, accountSid) = try Self.accountPath(head.path)
            _ = try authenticator.authenticate(head, accountSid: accountSid)
            return nil
        } catch {
            return error.response
        }
    }

    /// The path's segments after the root (`Accounts`, `{AC…}[.json]`, …) and its account SID.
    private static func accountPath(_ path: String) throws(RESTFailure) -> (segments: [String], accountSid: String) {
        let segments = path.dropFirst(root.count).split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            .map(String.init)
        guard segments.count >= 2, segments[0] == "Accounts", !segments.contains("") else { throw .notFound(path) }
        let accountSegment = segments.count == 2 ? stripJSON(segments[1]) : segments[1]
        guard let accountSid = accountSegment else { throw .notFound(path) }
        return (segments, accountSid)
    }

    /// What a resource handler needs: the request, its parameters, the authenticated account and
    /// the path that was asked for (for error messages).
    struct Context {
        let request: HTTPRequest
        let parameters: RESTParameters
        let account: Account
        /// The API key the request authenticated with; nil for the account's auth token.
        let apiKeySid: String?
        var method: String { request.method }
        var path: String { request.path }
    }

    private func route(_ request: HTTPRequest) async throws(RESTFailure) -> HTTPResponse {
        let path = request.path
        let (segments, accountSid) = try Self.accountPath(path)
        if !mediaRequiresAuth, request.method == "GET", segments.count == 4, segments[2] == "Recordings",
           !segments[3].hasSuffix(".json") {
            return try recordingMedia(name: segments[3], accountSid: accountSid, path: path)
        }
        let (account, apiKeySid) = try authenticator.authenticate(request, accountSid: accountSid)
        let context = Context(request: request, parameters: try RESTParameters(request), account: account,
                              apiKeySid: apiKeySid)

        let rest = Array(segments.dropFirst(2))
        switch rest.count {
        case 0:
            try Self.allow(context, "GET")
            return Self.json(RESTResourceJSON.account(account))
        case 1:
            switch rest[0] {
            case "Applications.json": return try listOrCreateApplications(context)
            case "Calls.json": return try await listCalls(context)
            case "Recordings.json": return try listRecordings(context, callSid: nil)
            case "Conferences.json": return try await listConferences(context)
            case "Keys.json": return try listOrCreateKeys(context)
            case "Tokens.json": return try createToken(context)
            case "IncomingPhoneNumbers.json": return try listOrCreatePhoneNumbers(context)
            default: throw .notFound(path)
            }
        case 2:
            switch rest[0] {
            case "Applications": return try application(context, sid: try Self.sid(rest[1], path: path))
            case "Calls": return try await call(context, sid: try Self.sid(rest[1], path: path))
            case "Recordings": return try recording(context, name: rest[1], callSid: nil)
            case "Conferences": return try await conference(context, sid: try Self.sid(rest[1], path: path))
            case "Keys": return try key(context, sid: try Self.sid(rest[1], path: path))
            case "IncomingPhoneNumbers": return try phoneNumber(context, sid: try Self.sid(rest[1], path: path))
            default: throw .notFound(path)
            }
        case 3 where rest[0] == "Calls" && rest[2] == "Insights.json":
            return try listInsights(context, callSid: rest[1])
        case 3 where rest[0] == "Calls" && rest[2] == "Recordings.json":
            return try listRecordings(context, callSid: rest[1])
        case 4 where rest[0] == "Calls" && rest[2] == "Recordings":
            return try recording(context, name: rest[3], callSid: rest[1])
        case 3 where rest[0] == "Conferences" && rest[2] == "Participants.json":
            return try await listParticipants(context, conferenceSid: rest[1])
        case 4 where rest[0] == "Conferences" && rest[2] == "Participants":
            return try await participant(context, conferenceSid: rest[1], callSid: try Self.sid(rest[3], path: path))
        default:
            throw .notFound(path)
        }
    }

    // MARK: Helpers shared by the resources

    /// `name` without its `.json` suffix, or nil if it has none.
    static func stripJSON(_ name: String) -> String? {
        name.hasSuffix(".json") && name.count > 5 ? String(name.dropLast(5)) : nil
    }

    /// The SID in a `{Sid}.json` segment.
    static func sid(_ segment: String, path: String) throws(RESTFailure) -> String {
        guard let sid = stripJSON(segment) else { throw .notFound(path) }
        return sid
    }

    /// Throws 405 unless the request's method is one of `methods` (comma-separated for `Allow`).
    static func allow(_ context: Context, _ methods: String) throws(RESTFailure) {
        let allowed = methods.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard allowed.contains(context.method) else { throw .methodNotAllowed(context.method, allow: methods) }
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        .json(value.serialized(), status: status)
    }

    /// An http(s) URL parameter: nil when absent or empty (which clears it), 20001 when malformed.
    static func url(_ parameters: RESTParameters, _ name: String) throws(RESTFailure) -> String? {
        try parameters.httpURL(name)
    }

    /// `GET` or `POST` (any case), uppercased; `fallback` when absent or empty.
    static func method(_ parameters: RESTParameters, _ name: String, fallback: String) throws(RESTFailure) -> String {
        try parameters.httpMethod(name, fallback: fallback)
    }
}

/// The REST API as one of the router's endpoints: HTTP Basic instead of access tokens.
extension TwilioRESTRouter: APIEndpoint {
    package func matches(_ path: String) -> Bool { Self.matches(path) }

    package func admit(_ head: HTTPRequest, router: APIRouter) async -> HTTPResponse? { admit(head) }

    package func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse { await handle(request) }
}
