import AudioCore
import AudioDevices
import Foundation
import ParleyCore
import Synchronization

/// Process-wide SDK settings behind `Voice`'s static properties.
struct VoiceSettings: Sendable {
    /// Edge name → server base URL (`http://host:port`), as the app configured them.
    var servers: [String: String] = [:]
    var edge = Voice.defaultEdge
    var isInsightsEnabled = true
    var audioDevice: (any AudioDevice)?
    /// The push provider `register` binds with.
    var pushProvider = "apns"
    /// The token the last `register` used: pushed invites are answered with it.
    var registeredToken: String?
    /// Calls not yet disconnected (the audio device may not change while there is one).
    var liveCalls = 0

    static let shared = Mutex(VoiceSettings())

    /// The server for `edge`, or for `Voice.edge` when nil (see `serverURL(for:)`).
    static func server(for edge: String?) throws(ParleyError) -> String {
        try shared.withLock { (settings) throws(ParleyError) in try settings.serverURL(for: edge ?? settings.edge) }
    }

    /// The server for `edge`: the one configured for it, else `PARLEY_SERVER_URL`, else the only
    /// configured server (whatever its name) — `roaming` picks that way.
    func serverURL(for edge: String) throws(ParleyError) -> String {
        if let url = servers[edge] { return url }
        if let url = ProcessInfo.processInfo.environment["PARLEY_SERVER_URL"], !url.isEmpty { return url }
        if edge == Voice.defaultEdge, let only = servers.values.sorted().first { return only }
        throw ParleyError(.connection, reason: "no Parley server is configured for edge \(edge) (set Voice.servers or PARLEY_SERVER_URL)")
    }
}
