import Foundation
import ParleyCore
import Synchronization

/// The settings every SDK's entry point exposes (`Voice.servers`, `Voice.edge`,
/// `Voice.isInsightsEnabled`, `Voice.logLevel`, …). Each SDK keeps one instance, so its servers
/// and Insights switch are its own; log levels and the logger are the process's (ParleyCore's
/// `Log`), shared by every SDK in it.
///
/// Parley is self-hosted: there is no vendor cloud, so a server comes from `servers` (edge name →
/// base URL) or `PARLEY_SERVER_URL`.
package final class ClientSettings: Sendable {
    /// The edge used when none is chosen: the only configured server, or `PARLEY_SERVER_URL`.
    package static let defaultEdge = "roaming"

    private struct State {
        var servers: [String: String] = [:]
        var edge = ClientSettings.defaultEdge
        var isInsightsEnabled = true
    }

    private let state = Mutex(State())
    /// The SDK's entry point (`Voice`), for error messages that say what to set.
    private let entryPoint: String

    package init(entryPoint: String) {
        self.entryPoint = entryPoint
    }

    /// Edge name → base URL of a `parley-server` (`http://host:port` or `https://…`).
    package var servers: [String: String] {
        get { state.withLock { $0.servers } }
        set { state.withLock { $0.servers = newValue } }
    }

    /// The edge (a name in `servers`) used when an operation names none.
    package var edge: String {
        get { state.withLock { $0.edge } }
        set { state.withLock { $0.edge = newValue } }
    }

    /// Whether Insights events are published (default true).
    package var isInsightsEnabled: Bool {
        get { state.withLock { $0.isInsightsEnabled } }
        set { state.withLock { $0.isInsightsEnabled = newValue } }
    }

    /// The server for `edge` (nil: `self.edge`): the one configured for it, else
    /// `PARLEY_SERVER_URL`, else — for the default edge `roaming` — the only configured server,
    /// whatever its name. Throws 31005 when there is none.
    package func server(for edge: String? = nil) throws(ParleyError) -> String {
        let (servers, chosen) = state.withLock { ($0.servers, edge ?? $0.edge) }
        if let url = servers[chosen] { return url }
        if let url = ProcessInfo.processInfo.environment["PARLEY_SERVER_URL"], !url.isEmpty { return url }
        if chosen == Self.defaultEdge, let only = servers.values.sorted().first { return only }
        throw ParleyError(.connection,
                          reason: "no Parley server is configured for edge \(chosen) (set \(entryPoint).servers or PARLEY_SERVER_URL)")
    }

    // MARK: Logging (process-wide)

    /// The logging level (reading: the `core` module's; setting: every module's).
    package var logLevel: LogLevel {
        get { Log.level(for: .core) }
        set { Log.setLevel(newValue) }
    }

    package func setLogLevel(_ level: LogLevel, module: LogModule) {
        Log.setLevel(level, for: module)
    }

    package func logLevel(for module: LogModule) -> LogLevel {
        Log.level(for: module)
    }

    /// Where log records go (standard error by default).
    package var logger: any Logger {
        get { Log.logger }
        set { Log.setLogger(newValue) }
    }
}
