import Glibc
import HTTPWire
import ParleyCore
import ParleyCrypto
import Synchronization

/// TLS settings, re-exported so server code needs only `import ParleyNet`.
public typealias TLSConfiguration = ParleyCrypto.TLSConfiguration

/// An HTTP/1.1 server (RFC 9112) with keep-alive, chunked request bodies, size limits, timeouts,
/// TLS, WebSocket upgrades, and graceful shutdown. Handlers run as Swift tasks; the event loops
/// never wait for them.
public final class HTTPServer: Sendable {
    /// Server settings. Limits answer 431 (headers) and 413 (body); a head not complete within
    /// `headerTimeout`, a request (head and body) not complete within `requestTimeout`, or a body
    /// stalled for `idleTimeout`, gets 408. A keep-alive connection with no request for
    /// `idleTimeout` is closed silently (RFC 9112 §9.8).
    ///
    /// Bounds against clients that do not play fair: bodies buffered by all connections together
    /// stay under `maxBufferedBodyBytes` (503 past it); `output` holds back reading from a peer
    /// that does not read its responses, and closes it after the stall timeout; at most
    /// `maxUnauthenticatedPerAddress` connections per source address may exist before one of
    /// their requests authenticates (more are closed on accept).
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks an ephemeral port; read `localPort` after `start()`.
        public var port: Int
        public var maxHeaderBytes: Int
        public var maxBodyBytes: Int
        public var idleTimeout: Duration
        public var headerTimeout: Duration
        /// Serve HTTPS when set (certificate and key PEM paths).
        public var tls: TLSConfiguration?
        public var webSocketMaxMessageBytes: Int
        /// Event-loop threads.
        public var threads: Int
        /// How long `shutdown()` waits for in-flight requests before closing connections.
        public var shutdownGracePeriod: Duration
        /// A whole request, head and body, must arrive within this (slow senders get 408).
        public var requestTimeout: Duration = .seconds(30)
        /// Request bodies buffered by all connections together; a request that would go over is
        /// answered 503 and its connection closed.
        public var maxBufferedBodyBytes = 64 * 1024 * 1024
        /// Connections from one source address that have not authenticated yet (0: no cap).
        public var maxUnauthenticatedPerAddress = 256
        /// Back-pressure for HTTP connections.
        public var output = OutputLimits()
        /// Back-pressure for upgraded WebSockets, whose server pushes are capped as well.
        public var webSocketOutput = OutputLimits(maxQueuedBytes: 4 * 1024 * 1024)
        /// The body of an error the server answers by itself (400, 408, 413, 431, 503); nil: plain text.
        public var errorResponse: (@Sendable (_ status: Int, _ detail: String) -> HTTPResponse)?
        /// Whether an exchange authenticated its connection (lifting it out of the per-address cap).
        /// By default: the request carried credentials and was not answered 401 or 403.
        public var authenticates: @Sendable (HTTPRequest, HTTPResponse) -> Bool = { request, response in
            (request.headers["Authorization"] != nil || request.headers["X-Twilio-Token"] != nil)
                && response.status != 401 && response.status != 403
        }

        public init(host: String = "127.0.0.1", port: Int = 0, maxHeaderBytes: Int = 16 * 1024,
                    maxBodyBytes: Int = 8 * 1024 * 1024, idleTimeout: Duration = .seconds(60),
                    headerTimeout: Duration = .seconds(10), tls: TLSConfiguration? = nil,
                    webSocketMaxMessageBytes: Int = 1 << 20, threads: Int = 1,
                    shutdownGracePeriod: Duration = .seconds(10)) {
            self.host = host
            self.port = port
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodyBytes = maxBodyBytes
            self.idleTimeout = idleTimeout
            self.headerTimeout = headerTimeout
            self.tls = tls
            self.webSocketMaxMessageBytes = webSocketMaxMessageBytes
            self.threads = threads
            self.shutdownGracePeriod = shutdownGracePeriod
        }

        var limits: HTTPLimits { HTTPLimits(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes) }
    }

    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse
    /// Decides on a request from its head alone (its `body` is empty), before any of its body is
    /// read: nil admits it, a response refuses it (the body is never read; the connection closes).
    /// Requests whose body arrives together with the head skip it and go to the handler.
    public typealias Admission = @Sendable (HTTPRequest) async -> HTTPResponse?
    /// Runs after a successful upgrade; when it returns, the socket is closed with 1000 if still open.
    public typealias WebSocketHandler = @Sendable (HTTPRequest, WebSocket) async -> Void
    /// Runs on the event loop right after a successful upgrade and returns the socket's delegate,
    /// which then receives its messages on the loop. It must not block.
    public typealias WebSocketAcceptor = @Sendable (HTTPRequest, WebSocket) -> any WebSocketDelegate

    /// What an upgraded path runs: a task per connection, or a delegate (no task while idle).
    enum WebSocketRoute {
        case task(WebSocketHandler)
        case delegate(WebSocketAcceptor)
    }

    public let configuration: Configuration
    let handler: Handler
    let admission: Admission?
    private let state = Mutex(State())
    /// Request body bytes buffered by every connection together.
    private let bufferedBodyBytes = Atomic<Int>(0)

    private struct State {
        var routes: [String: WebSocketRoute] = [:]
        /// The subprotocol an upgrade of the path must offer, for routes that require one.
        var subprotocols: [String: String] = [:]
        var group: EventLoopGroup?
        var listener: LoopBound<TCPListener>?
        var tlsContext: TLSContext?
        var port = 0
        var connections: [Int: LoopBound<HTTPServerConnection>] = [:]
        /// Connections not yet authenticated, per source address.
        var unauthenticated: [[UInt8]: Int] = [:]
        var refusedConnections = 0
        var nextID = 0
        var shuttingDown = false
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }

    public init(configuration: Configuration, admission: Admission? = nil, handler: @escaping Handler) {
        self.configuration = configuration
        self.admission = admission
        self.handler = handler
    }

    /// Upgrades `GET path` requests carrying a valid WebSocket handshake (RFC 6455 §4.2) and runs
    /// `handler` with the socket. Requests for other paths, or without upgrade headers, go to the
    /// HTTP handler. Paths match exactly, without the query.
    public func addWebSocketRoute(_ path: String, _ handler: @escaping WebSocketHandler) {
        state.withLock { $0.routes[path] = .task(handler) }
    }

    /// Like `addWebSocketRoute(_:_:)`, but each socket's messages go to the delegate `accept`
    /// returns, on the event loop, so an idle connection holds no task. The delegate closes the
    /// socket when it is done with it.
    public func addWebSocketRoute(_ path: String, accept: @escaping WebSocketAcceptor) {
        state.withLock { $0.routes[path] = .delegate(accept) }
    }

    /// Like `addWebSocketRoute(_:accept:)` for a protocol carried as a WebSocket subprotocol
    /// (RFC 6455 §1.9, e.g. `sip`, RFC 7118 §4): an upgrade that does not offer `subprotocol` in
    /// `Sec-WebSocket-Protocol` is refused 400, and the 101 names it.
    public func addWebSocketRoute(_ path: String, subprotocol: String, accept: @escaping WebSocketAcceptor) {
        state.withLock {
            $0.routes[path] = .delegate(accept)
            $0.subprotocols[path] = subprotocol
        }
    }

    func webSocketRoute(_ path: String) -> (route: WebSocketRoute, subprotocol: String?)? {
        state.withLock { s in s.routes[path].map { ($0, s.subprotocols[path]) } }
    }

    /// Binds and starts serving. After it returns, `localPort` is valid.
    public func start() throws {
        var tlsContext: TLSContext?
        if let config = configuration.tls {
            do { tlsContext = try TLSContext(configuration: config, isServer: true) } catch { throw NetError.tls(error.message) }
        }
        let fd = try Socket.listen(host: configuration.host, port: configuration.port)
        let port = SocketAddress.local(of: fd)?.port ?? 0
        let group: EventLoopGroup
        do { group = try EventLoopGroup(threads: configuration.threads, name: "http") } catch { Glibc.close(fd); throw error }
        let acceptLoop = group.loops[0]
        let listener = LoopBound(TCPListener(loop: acceptLoop, fd: fd) { [self] client in
            let loop = group.next()
            loop.execute { [self] in self.accepted(client, on: loop) }
        }, loop: acceptLoop)
        state.withLock {
            $0.group = group
            $0.listener = listener
            $0.tlsContext = tlsContext
            $0.port = port
        }
        acceptLoop.execute {
            do { try acceptLoop.register(fd, handler: listener.value) } catch { Log.error(.core, "listener: \(error)") }
        }
        Log.info(.core, "HTTP server listening on \(configuration.host):\(port)\(tlsContext == nil ? "" : " (TLS)")")
    }

    /// The bound port (valid after `start()`).
    public var localPort: Int { state.withLock { $0.port } }

    /// Stops accepting, lets in-flight requests finish (closing their connections after the response),
    /// closes idle connections and WebSockets (1001), and returns when all are closed or the grace
    /// period has passed.
    public func shutdown() async {
        let (listener, connections, group) = state.withLock { s in
            s.shuttingDown = true
            return (s.listener, Array(s.connections.values), s.group)
        }
        guard let group else { return }
        if let listener { listener.loop.execute { listener.value.close() } }
        for connection in connections { connection.loop.execute { connection.value.beginShutdown() } }
        let grace = configuration.shutdownGracePeriod
        let forceClose = Task { [self] in
            try await Task.sleep(for: grace)
            let remaining = state.withLock { Array($0.connections.values) }
            for connection in remaining { connection.loop.execute { connection.value.forceClose() } }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let drained = state.withLock { s in
                if s.connections.isEmpty { return true }
                s.drainWaiters.append(continuation)
                return false
            }
            if drained { continuation.resume() }
        }
        forceClose.cancel()
        state.withLock { $0.group = nil; $0.listener = nil }
        group.shutdown()
    }

    // MARK: Connections (called on loops)

    private func accepted(_ fd: Int32, on loop: EventLoop) {
        let address = SocketAddress.peer(of: fd)?.ipBytes ?? []
        let cap = configuration.maxUnauthenticatedPerAddress
        let admitted: (id: Int, tls: TLSContext?, shuttingDown: Bool)? = state.withLock { s in
            if cap > 0 && s.unauthenticated[address, default: 0] >= cap {
                s.refusedConnections += 1
                return nil
            }
            s.unauthenticated[address, default: 0] += 1
            s.nextID += 1
            return (s.nextID, s.tlsContext, s.shuttingDown)
        }
        guard let (id, tlsContext, shuttingDown) = admitted else {
            Log.debug(.core, "refused a connection: \(cap) unauthenticated ones from its address already")
            Glibc.close(fd)
            return
        }
        if shuttingDown { releaseUnauthenticated(address); Glibc.close(fd); return }
        var session: TLSSession?
        if let tlsContext {
            do { session = try TLSSession(context: tlsContext) } catch { releaseUnauthenticated(address); Glibc.close(fd); return }
        }
        let channel = TCPChannel(loop: loop, fd: fd, tls: session, connecting: false)
        channel.setOutputLimits(configuration.output)
        let connection = HTTPServerConnection(server: self, channel: channel, id: id, address: address)
        state.withLock { $0.connections[id] = LoopBound(connection, loop: connection.loop) }
        channel.delegate = connection
        connection.start()
    }

    func connectionClosed(_ id: Int) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.connections[id] = nil
            guard s.connections.isEmpty && s.shuttingDown else { return [] }
            defer { s.drainWaiters.removeAll() }
            return s.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }

    /// A connection from `address` authenticated, or closed before it did.
    func releaseUnauthenticated(_ address: [UInt8]) {
        state.withLock { s in
            let left = s.unauthenticated[address, default: 1] - 1
            s.unauthenticated[address] = left > 0 ? left : nil
        }
    }

    /// Connections closed on accept because their address had too many unauthenticated ones.
    public var refusedConnectionCount: Int { state.withLock { $0.refusedConnections } }

    /// Takes `delta` bytes from (or, negative, returns them to) the server-wide body budget;
    /// false, and nothing taken, if the budget cannot cover them.
    func reserveBodyBytes(_ delta: Int) -> Bool {
        guard delta > 0 else {
            bufferedBodyBytes.subtract(-delta, ordering: .relaxed)
            return true
        }
        let total = bufferedBodyBytes.add(delta, ordering: .relaxed).newValue
        if total > configuration.maxBufferedBodyBytes {
            bufferedBodyBytes.subtract(delta, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Request body bytes buffered right now, by all connections.
    public var bufferedBodyByteCount: Int { bufferedBodyBytes.load(ordering: .relaxed) }
}
