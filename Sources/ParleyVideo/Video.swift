import Foundation
import ParleyClientCore
import ParleyCore

/// The entry point of the Parley video SDK (the seed's `TwilioVideoSDK`): the server to use,
/// logging, and `connect`. All members are static; `Video` is never instantiated.
///
/// Parley is self-hosted: set `servers` (or `PARLEY_SERVER_URL`) before connecting.
public enum Video {
    /// The SDK's version, sent as `parley-swift-video/<version>` in the signaling `hello`.
    public static let sdkVersion = "0.1.0"

    static let settings = ClientSettings(entryPoint: "Video")

    /// The video SDK's Insights events go out through this publisher (`POST /v1/insights`).
    static let insights = InsightsPublisher(settings: settings)

    /// Edge name → base URL of a `parley-server` (`http://host:port`).
    public static var servers: [String: String] {
        get { settings.servers }
        set { settings.servers = newValue }
    }

    /// The edge used when `ConnectOptions` names none.
    public static var edge: String {
        get { settings.edge }
        set { settings.edge = newValue }
    }

    /// The logging level of every module (default `.error`); shared with the other Parley SDKs.
    public static var logLevel: LogLevel {
        get { settings.logLevel }
        set { settings.logLevel = newValue }
    }

    /// Sets the logging level of one module.
    public static func setLogLevel(_ logLevel: LogLevel, module: LogModule) {
        settings.setLogLevel(logLevel, module: module)
    }

    /// The logging level of one module.
    public static func logLevel(for module: LogModule) -> LogLevel {
        settings.logLevel(for: module)
    }

    /// Whether the SDK publishes Insights events to the server (default true; the seed's
    /// `ConnectOptions.isInsightsEnabled` turns them off for one room).
    public static var isInsightsEnabled: Bool {
        get { settings.isInsightsEnabled }
        set { settings.isInsightsEnabled = newValue }
    }

    /// Where log records go (standard error by default).
    public static var logger: any Logger {
        get { settings.logger }
        set { settings.logger = newValue }
    }

    /// Connects to a room (the seed's `connect(options:delegate:)`): returns at once a `Room` in
    /// state `.connecting`; `roomDidConnect` or `roomDidFailToConnect` follows on the delegate queue.
    /// The room holds its delegate weakly.
    public static func connect(options: ConnectOptions, delegate: (any RoomDelegate)?) -> Room {
        let room = Room(options: options, delegate: delegate)
        room.start()
        return room
    }

    /// Connects and returns once connected: `try await Video.connect(options)`. (Unlabelled, so
    /// async code can still call the delegate form above, which returns at once.)
    /// - Throws: the error `roomDidFailToConnect` would carry (20101 a bad token, 53105 a full
    ///   room, 53118 a completed room, 53000/53001 signaling, 534xx media).
    public static func connect(_ options: ConnectOptions, delegate: (any RoomDelegate)? = nil) async throws(ParleyError) -> Room {
        let room = Room(options: options, delegate: delegate)
        room.start()
        try await room.connected()
        return room
    }
}
