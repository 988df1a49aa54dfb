import AccessToken
import Foundation
import ParleyServer
import ParleyStore

/// A `PlatformServer` on ephemeral loopback ports (HTTP and media) with an in-memory store, and a
/// voice access token signed by its default key: what tests and benchmarks call `/v1/echo` with.
public struct InProcessPlatform: Sendable {
    public let server: PlatformServer
    /// A Bearer token for `identity`.
    public let token: String

    public var baseURL: String { "http://127.0.0.1:\(server.port)" }

    public static func start(identity: String, ttl: Int64 = 3600,
                             configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> InProcessPlatform {
        var config = ServerConfiguration()
        config.port = 0
        config.mediaPort = 0
        config.recordingsDirectory = NSTemporaryDirectory() + "parley-recordings-\(getpid())"
        configure(&config)
        let server = try PlatformServer(configuration: config, store: InMemoryAccountStore())
        try server.start()
        let token = try Self.token(server, identity: identity, grants: [.voice(VoiceGrant(incomingAllow: true))], ttl: ttl)
        return InProcessPlatform(server: server, token: token)
    }

    /// A token for `identity` with `grants`, signed by the server's default key.
    public static func token(_ server: PlatformServer, identity: String, grants: [AccessTokenGrant],
                             ttl: Int64 = 3600) throws -> String {
        let creds = server.defaultCredentials
        return try AccessTokenBuilder.mint(accountSid: creds.account.sid, apiKeySid: creds.apiKey.sid,
                                           apiSecret: creds.apiKey.secret, identity: identity, ttl: ttl, grants: grants,
                                           now: Int64(Date().timeIntervalSince1970))
    }
}

/// The package's built executables (`parley-server`, `parley`), found beside the running test
/// bundle or benchmark.
public enum BuiltProducts {
    public static let binDirectory: URL = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("parley-server").path),
              dir.path != "/" {
            dir.deleteLastPathComponent()
        }
        return dir
    }()

    /// The path of `name`, or an error telling how to build it.
    public static func path(_ name: String) throws -> String {
        let url = binDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw MissingProduct(description: "\(name) is not built beside the tests (looked in \(binDirectory.path)); "
                                 + "run `swift build --build-tests`")
        }
        return url.path
    }

    public struct MissingProduct: Error, CustomStringConvertible {
        public let description: String
    }
}
