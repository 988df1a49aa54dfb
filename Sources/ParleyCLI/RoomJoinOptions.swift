import AccessToken
import Foundation

/// `parley room join`'s command line, checked: every bad value is a `UsageError` (exit 2), never a trap.
struct RoomJoinOptions: Sendable {
    static let options: Set<String> = Credentials.options.union([
        "server", "token", "identity", "audio", "tone", "video", "video-size", "fps", "record-dir",
        "snapshot-every", "send-data", "duration", "connect-timeout",
    ])

    /// What the local audio track plays, if one is published.
    enum AudioInput: Sendable, Equatable {
        case file(String)
        case tone(Double)
    }

    let roomName: String
    let server: String
    let token: String
    let audio: AudioInput?
    let video: RoomVideoInput?
    let recordDirectory: String?
    let snapshotInterval: Duration?
    let dataMessage: String?
    /// Counted from roomDidConnect; nil: until SIGINT or the room ends.
    let duration: Duration?
    let connectTimeout: Duration

    init(_ args: [String], environment: [String: String]) throws {
        let parsed = try Arguments(args, options: Self.options)
        roomName = try parsed.positionals(1, "the room's name (parley room join NAME)")[0]
        guard !roomName.isEmpty, roomName.utf8.count <= 128 else {
            throw UsageError("the room's name must be 1 to 128 bytes, got \(roomName.utf8.count)")
        }
        server = try Self.serverURL(parsed, environment: environment)
        token = try Self.accessToken(parsed, room: roomName, environment: environment)
        audio = try Self.audioInput(parsed)
        video = try RoomVideoInput(parsed)
        recordDirectory = parsed.value("record-dir")
        snapshotInterval = try parsed.seconds("snapshot-every")
        if snapshotInterval != nil, recordDirectory == nil {
            throw UsageError("--snapshot-every needs --record-dir DIR (where the PNG files go)")
        }
        dataMessage = parsed.value("send-data")
        duration = try parsed.seconds("duration")
        connectTimeout = try parsed.seconds("connect-timeout") ?? .seconds(30)
    }

    /// `--server URL` or `PARLEY_SERVER_URL`: an http(s) URL with a host.
    private static func serverURL(_ parsed: Arguments, environment: [String: String]) throws(UsageError) -> String {
        guard let server = parsed.value("server") ?? environment["PARLEY_SERVER_URL"] else {
            throw UsageError("--server URL is required (or PARLEY_SERVER_URL)")
        }
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              url.host?.isEmpty == false else {
            throw UsageError("--server must be an http:// or https:// URL, got \(server)")
        }
        return server
    }

    /// `--token`, or one with a video grant for this room minted for `--identity` from the
    /// credentials (flags, environment, or the store's first active key, as `parley call`).
    private static func accessToken(_ parsed: Arguments, room: String, environment: [String: String]) throws -> String {
        if let token = parsed.value("token") {
            guard parsed.value("identity") == nil else { throw UsageError("--token or --identity, not both") }
            return token
        }
        guard let identity = parsed.value("identity") else { throw UsageError("--token JWT or --identity NAME is required") }
        guard Identity.isValid(identity) else { throw UsageError("--identity: \(Identity.ruleDescription), got \(identity)") }
        let credentials = try Credentials.resolve(parsed, environment: environment)
        return try AccessTokenBuilder.mint(accountSid: credentials.accountSid, apiKeySid: credentials.apiKeySid,
                                           apiSecret: credentials.apiSecret, identity: identity, ttl: 3600,
                                           grants: [.video(VideoGrant(room: room))])
    }

    private static func audioInput(_ parsed: Arguments) throws(UsageError) -> AudioInput? {
        switch (parsed.value("audio"), parsed.value("tone")) {
        case (.some, .some): throw UsageError("--audio or --tone, not both")
        case (.some(let path), nil):
            guard fileExists(path) else { throw UsageError("--audio: no such file \(path)") }
            return .file(path)
        case (nil, .some(let text)):
            guard let hertz = Double(text), hertz.isFinite, hertz >= 20, hertz <= 20_000 else {
                throw UsageError("--tone must be a frequency from 20 to 20000 Hz, got \(text)")
            }
            return .tone(hertz)
        case (nil, nil): return nil
        }
    }
}
