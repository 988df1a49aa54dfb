import AccessToken
import ParleyCore
import ParleyNet
import ParleyStore
import WebRTC

/// `parley-server` as a library: the store, the token verifier, the API router and the HTTP
/// listener, wired together. Tests start it in-process on port 0; `parley-server` runs it until a
/// signal arrives.
public final class PlatformServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: any AccountStore
    public let metrics = ServerMetrics()
    /// The account and API key created on first start (or found on later ones).
    public let defaultCredentials: DefaultCredentials
    /// The shared WebRTC media socket (`--media`), bound in `init`.
    public let media: MediaTransportServer
    private let http: HTTPServer

    /// Opens (or creates, mode 0600) the store, ensures the default account and key exist, and
    /// prepares the listener. Nothing listens until `start()`.
    public init(configuration: ServerConfiguration, store: (any AccountStore)? = nil) throws {
        self.configuration = configuration
        let store = try store ?? SQLiteAccountStore(path: configuration.databasePath)
        self.store = store
        defaultCredentials = try store.ensureDefaultAccount()
        let verifier = AccessTokenVerifier(resolver: StoreKeyResolver(store: store), leeway: configuration.tokenLeeway)
        media = try MediaTransportServer(configuration: .init(host: configuration.mediaHost, port: configuration.mediaPort))
        let router = APIRouter(verifier: verifier, metrics: metrics, media: media)
        var http = HTTPServer.Configuration(host: configuration.host, port: configuration.port,
                                            threads: configuration.threads)
        if let cert = configuration.tlsCertificatePath, let key = configuration.tlsPrivateKeyPath {
            http.tls = .server(certificatePath: cert, privateKeyPath: key)
        }
        self.http = HTTPServer(configuration: http) { request in await router.handle(request) }
    }

    /// Binds and starts serving.
    public func start() throws {
        try http.start()
        let scheme = configuration.tlsCertificatePath == nil ? "http" : "https"
        Log.info(.platform, "listening on \(scheme)://\(configuration.host):\(http.localPort), media udp \(media.candidate)")
        if defaultCredentials.created {
            Log.info(.platform, "created default account \(defaultCredentials.account.sid) and API key \(defaultCredentials.apiKey.sid)")
        }
    }

    /// The bound port (after `start()`).
    public var port: Int { http.localPort }

    /// Stops accepting, lets in-flight requests finish, then closes.
    public func shutdown() async {
        await http.shutdown()
        await media.shutdown()
        Log.info(.platform, "stopped")
    }
}
