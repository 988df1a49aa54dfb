import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// The Twilio Video v1-shaped REST API under `/v1/Rooms`: rooms (create, list, fetch, complete),
/// their participants (list, fetch, disconnect) and published tracks. Reads go to the store;
/// changes to live rooms go through `RoomControl`. Auth is HTTP Basic (`RESTAuthenticator`);
/// errors are the vendor's JSON (`RESTFailure`); bodies are form-encoded.
public struct VideoRESTRouter: Sendable {
    /// The path prefix this router serves.
    public static let root = "/v1/Rooms"

    let store: any PlatformStore
    let control: any RoomControl
    let publicBaseURL: @Sendable () -> String
    let authenticator: RESTAuthenticator
    /// The composer behind `/v1/Compositions` (nil: compositions cannot be created).
    let compositions: (any CompositionControl)?
    /// Seconds since the epoch, for the expiry of media URLs.
    let wallClock: @Sendable () -> Int64

    /// - Parameters:
    ///   - store: accounts and keys (auth), rooms, participants and published tracks.
    ///   - control: the live rooms, for everything that changes one.
    ///   - publicBaseURL: the server's external base URL, read per request, for resource `url`s.
    ///   - compositions: the composer behind `/v1/Compositions`.
    public init(store: any PlatformStore, control: any RoomControl, compositions: (any CompositionControl)? = nil,
                publicBaseURL: @escaping @Sendable () -> String,
                wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.store = store
        self.control = control
        self.compositions = compositions
        self.publicBaseURL = publicBaseURL
        self.wallClock = wallClock
        authenticator = RESTAuthenticator(store: store)
    }

    /// True for `/v1/Rooms`, `/v1/Recordings`, `/v1/Compositions` and paths under them.
    public static func matches(_ path: String) -> Bool {
        [root, "/v1/Recordings", "/v1/Compositions"].contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// Answers one request; never throws (failures become the vendor's error JSON).
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        do { return try await route(request) } catch { return error.response }
    }

    /// The refusal for a request whose credentials do not hold, decided from its head; nil lets it through.
    package func admit(_ head: HTTPRequest) -> HTTPResponse? {
        // Signed media URLs carry their own proof, checked when the request is handled.
        if VideoMediaLinks.isContent(head.path) { return nil }
        do {
            _ = try authenticate(head)
            return nil
        } catch {
            return error.response
        }
    }

    /// The account the Basic credentials prove (the user name is the account SID or an API key of it).
    func authenticate(_ request: HTTPRequest) throws(RESTFailure) -> Account {
        guard let (user, _) = RESTAuthenticator.basicCredentials(request) else { throw .authenticate() }
        var accountSid = user
        if user.hasPrefix("SK") {
            let key = try storeCall { () throws(StoreError) in try store.activeAPIKey(sid: user) }
            guard let key else { throw .authenticate() }
            accountSid = key.accountSid
        }
        return try authenticator.authenticate(request, accountSid: accountSid).account
    }

    private func route(_ request: HTTPRequest) async throws(RESTFailure) -> HTTPResponse {
        let path = request.path
        if VideoMediaLinks.isContent(path) { return try signedContent(request) }
        if !path.hasPrefix(Self.root) { return try await recordingsOrCompositions(request) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(3).map(String.init)
        guard !segments.contains(""), path.hasPrefix(Self.root) else { throw .notFound(path) }
        let account = try authenticate(request)
        let context = VideoContext(request: request, parameters: try RESTParameters(request), account: account,
                                   base: publicBaseURL())
        switch segments.count {
        case 0: return try await rooms(context)
        case 1: return try await room(context, name: segments[0])
        default:
            let room = try findRoom(context, segments[0])
            if segments[1] == "RecordingRules", segments.count == 2 { return try await recordingRules(context, room: room) }
            if segments[1] == "Recordings" { return try roomRecordings(context, room: room, Array(segments.dropFirst(2))) }
            guard segments[1] == "Participants" else { throw .notFound(path) }
            if segments.count == 2 { return try participants(context, room: room) }
            let found = try findParticipant(context, room: room, segments[2])
            switch segments.count {
            case 3: return try await participant(context, room: room, found)
            case 4 where segments[3] == "PublishedTracks":
                return try publishedTracks(context, found, trackSid: nil)
            case 5 where segments[3] == "PublishedTracks":
                return try publishedTracks(context, found, trackSid: segments[4])
            case 4 where segments[3] == "SubscribedTracks":
                return try await subscribedTracks(context, found, trackSid: nil)
            case 5 where segments[3] == "SubscribedTracks":
                return try await subscribedTracks(context, found, trackSid: segments[4])
            case 4 where segments[3] == "SubscribeRules":
                return try await subscribeRules(context, found)
            default: throw .notFound(path)
            }
        }
    }

    // MARK: Lookups

    /// A room by `RM…` SID of the account, or the in-progress room with that unique name; else 20404.
    func findRoom(_ context: VideoContext, _ name: String) throws(RESTFailure) -> RoomRecord {
        let accountSid = context.account.sid
        let found = try storeCall { () throws(StoreError) -> RoomRecord? in
            if name.hasPrefix("RM"), let room = try store.room(sid: name), room.accountSid == accountSid { return room }
            return try store.inProgressRoom(accountSid: accountSid, uniqueName: name)
        }
        guard let found else { throw .notFound(context.request.path) }
        return found
    }

    /// A participant of `room` by `PA…` SID, or the connected one with that identity; else 20404.
    func findParticipant(_ context: VideoContext, room: RoomRecord, _ name: String) throws(RESTFailure) -> ParticipantRecord {
        let found = try storeCall { () throws(StoreError) -> ParticipantRecord? in
            if name.hasPrefix("PA"), let p = try store.participant(sid: name), p.roomSid == room.sid { return p }
            return try store.participants(roomSid: room.sid, status: nil)
                .sorted { ($0.status == .connected ? 0 : 1, -$0.startTime) < ($1.status == .connected ? 0 : 1, -$1.startTime) }
                .first { $0.identity == name }
        }
        guard let found else { throw .notFound(context.request.path) }
        return found
    }

    static func allow(_ context: VideoContext, _ methods: String) throws(RESTFailure) {
        guard methods.split(separator: ",").map({ String($0.filter { $0 != " " }) }).contains(context.request.method) else {
            throw .methodNotAllowed(context.request.method, allow: methods)
        }
    }

    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse { .json(value.serialized(), status: status) }

    /// 400 with a Video code.
    static func failure(_ code: ParleyError.Code, _ message: String) -> RESTFailure {
        RESTFailure(status: 400, code: code, message: message)
    }
}

/// The REST API as one of the platform router's endpoints: HTTP Basic instead of access tokens.
extension VideoRESTRouter: APIEndpoint {
    package func matches(_ path: String) -> Bool { Self.matches(path) }

    package func admit(_ head: HTTPRequest, router: APIRouter) async -> HTTPResponse? { admit(head) }

    package func handle(_ request: HTTPRequest, router: APIRouter) async -> HTTPResponse { await handle(request) }
}

/// What a resource handler needs.
struct VideoContext {
    let request: HTTPRequest
    let parameters: RESTParameters
    let account: Account
    /// The public base URL, without a trailing slash.
    let base: String
    var method: String { request.method }
}
