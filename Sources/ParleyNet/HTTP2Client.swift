import ParleyCrypto
import Synchronization

/// An HTTP/2 client (RFC 9113) for one origin, such as APNs: one connection (TLS with ALPN `h2`;
/// `http://` URLs use cleartext with prior knowledge), many concurrent streams up to the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS, flow control both ways, PING replies, and GOAWAY handling:
/// requests the server did not process are retried on a new connection. A connection that dies is
/// replaced on the next request.
public final class HTTP2Client: Sendable {
    public struct Configuration: Sendable {
        /// TLS verification for `https` (trust roots for a private CA); ALPN is always `h2`.
        public var tls: TLSConfiguration
        /// Default per-request timeout, from `send` until the whole response arrived.
        public var requestTimeout: Duration
        /// How long a new connection may take to connect and finish TLS.
        public var connectTimeout: Duration
        public var maxResponseBodyBytes: Int
        /// SETTINGS_MAX_HEADER_LIST_SIZE we announce and enforce.
        public var maxResponseHeaderListSize: Int
        /// A cap on concurrent streams below the server's own limit.
        public var maxConcurrentStreams: Int
        /// Our stream and connection receive windows (SETTINGS_INITIAL_WINDOW_SIZE).
        public var receiveWindow: Int

        public init(tls: TLSConfiguration = .client(), requestTimeout: Duration = .seconds(30),
                    connectTimeout: Duration = .seconds(10), maxResponseBodyBytes: Int = 1 << 20,
                    maxResponseHeaderListSize: Int = 64 * 1024, maxConcurrentStreams: Int = 100,
                    receiveWindow: Int = 1 << 20) {
            self.tls = tls
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.maxResponseBodyBytes = maxResponseBodyBytes
            self.maxResponseHeaderListSize = maxResponseHeaderListSize
            self.maxConcurrentStreams = maxConcurrentStreams
            self.receiveWindow = receiveWindow
        }
    }

    public let configuration: Configuration
    /// The origin every request goes to.
    public let endpoint: Endpoint
    private let loop: EventLoop
    private let dispatcher: LoopBound<HTTP2ClientDispatcher>
    private let isShutDown = Atomic<Bool>(false)

    /// A client for the origin of `url` (`https://host[:port]` or `http://…`; any path is ignored).
    public init(url: String, configuration: Configuration = Configuration()) throws {
        var tlsConfiguration = configuration.tls
        tlsConfiguration.alpnProtocols = ["h2"]
        let endpoint = try Endpoint(url: url)
        let tlsContext: TLSContext?
        do {
            tlsContext = endpoint.useTLS ? try TLSContext(configuration: tlsConfiguration, isServer: false) : nil
        } catch {
            throw NetError.tls(error.message)
        }
        self.configuration = configuration
        self.endpoint = endpoint
        loop = try EventLoop(name: "http2-client")
        let options = HTTP2ClientCore.Options(
            scheme: endpoint.useTLS ? "https" : "http", defaultAuthority: endpoint.hostHeader,
            receiveWindow: max(65_535, min(configuration.receiveWindow, HTTP2ClientCore.maxWindowSize)),
            maxHeaderListSize: configuration.maxResponseHeaderListSize,
            maxResponseBodyBytes: configuration.maxResponseBodyBytes,
            maxConcurrentStreams: max(1, configuration.maxConcurrentStreams))
        dispatcher = LoopBound(HTTP2ClientDispatcher(loop: loop, endpoint: endpoint, tlsContext: tlsContext, options: options,
                                                     connectTimeout: configuration.connectTimeout), loop: loop)
    }

    deinit { loop.stop() }

    /// Sends one request and waits for the complete response (or `timeout`, default
    /// `configuration.requestTimeout`). Throws `NetError` (connect, TLS, timeout, closed) or
    /// `HTTP2ClientError`.
    public func send(_ request: HTTP2Request, timeout: Duration? = nil) async throws -> HTTP2Response {
        guard !isShutDown.load(ordering: .acquiring) else { throw NetError.connectionClosed }
        let timeout = timeout ?? configuration.requestTimeout
        let dispatcher = dispatcher
        return try await withCheckedThrowingContinuation { continuation in
            loop.execute { dispatcher.value.submit(request, timeout: timeout, continuation: continuation) }
        }
    }

    /// Sends one request; see `send(_:timeout:)`.
    public func send(method: String, path: String, authority: String? = nil,
                     headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                     timeout: Duration? = nil) async throws -> HTTP2Response {
        try await send(HTTP2Request(method: method, path: path, authority: authority, headers: headers, body: body),
                       timeout: timeout)
    }

    /// Sends GOAWAY, fails requests still in flight, and stops the client's event loop.
    public func shutdown() async {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let dispatcher = dispatcher
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                dispatcher.value.shutdown()
                done.resume()
            }
        }
        loop.stop()
    }
}
