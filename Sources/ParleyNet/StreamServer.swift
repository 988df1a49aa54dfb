import Glibc
import ParleyCore
import ParleyCrypto
import Synchronization

/// What a `StreamServer` connection's bytes go to: one object per connection, called on its loop
/// thread (keep it short; hand long work to a task).
public protocol StreamConnectionHandler: AnyObject {
    /// Plaintext arrived (TLS already removed). The slice is only valid during the call.
    func received(_ bytes: ArraySlice<UInt8>, on connection: StreamConnection)
    /// The connection closed (either side, or an error).
    func closed(_ connection: StreamConnection)
}

/// One accepted connection of a `StreamServer`: send to it and close it from any thread.
public final class StreamConnection: Sendable {
    public let id: Int
    public let peer: SocketAddress
    public let loop: EventLoop
    private let channel: Mutex<LoopBound<TCPChannel>?>

    init(id: Int, peer: SocketAddress, loop: EventLoop) {
        self.id = id
        self.peer = peer
        self.loop = loop
        channel = Mutex(nil)
    }

    fileprivate func attach(_ tcp: TCPChannel) { channel.withLock { $0 = LoopBound(tcp, loop: loop) } }
    /// Drops the channel once closed (it holds the bridge, which holds this).
    fileprivate func detach() { channel.withLock { $0 = nil } }

    /// Queues `bytes` (back-pressure per the server's `OutputLimits`: a peer that reads nothing is closed).
    public func send(_ bytes: [UInt8]) {
        guard let bound = channel.withLock({ $0 }) else { return }
        loop.execute { bound.value.write(bytes) }
    }

    /// Closes after what is queued went out.
    public func close() {
        guard let bound = channel.withLock({ $0 }) else { return }
        loop.execute { bound.value.closeAfterFlush() }
    }
}

/// A TCP (or TLS) listener for message protocols that frame their own bytes (SIP over TCP/TLS,
/// RFC 3261 §18): each connection's plaintext goes to the handler `accept` returns for it, on its
/// loop thread. Bounded: at most `maxConnections` at once and `maxPerAddress` from one address
/// (more are closed on accept); a peer that does not read is paused, then closed (`output`).
public final class StreamServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var tls: TLSConfiguration?
        public var output = OutputLimits(maxQueuedBytes: 1 << 20)
        public var maxConnections = 10_000
        public var maxPerAddress = 256
        public init(host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration? = nil) {
            self.host = host
            self.port = port
            self.tls = tls
        }
    }

    public typealias Acceptor = @Sendable (StreamConnection) -> (any StreamConnectionHandler)?

    public let configuration: Configuration
    private let accept: Acceptor
    private let state = Mutex(State())

    private struct State {
        var loop: EventLoop?
        var listener: LoopBound<TCPListener>?
        var tlsContext: TLSContext?
        var port = 0
        var connections: [Int: StreamConnection] = [:]
        var perAddress: [[UInt8]: Int] = [:]
        var nextID = 0
        /// Connections closed at accept because a bound was reached.
        var refused = 0
    }

    public init(configuration: Configuration, accept: @escaping Acceptor) {
        self.configuration = configuration
        self.accept = accept
    }

    /// Binds and listens on `loop`; `localPort` is valid after it returns.
    public func start(on loop: EventLoop) throws {
        var tlsContext: TLSContext?
        if let tls = configuration.tls {
            do { tlsContext = try TLSContext(configuration: tls, isServer: true) } catch { throw NetError.tls(error.message) }
        }
        let fd = try Socket.listen(host: configuration.host, port: configuration.port)
        let listener = LoopBound(TCPListener(loop: loop, fd: fd) { [self] client in accepted(client, on: loop) }, loop: loop)
        state.withLock {
            $0.loop = loop
            $0.listener = listener
            $0.tlsContext = tlsContext
            $0.port = SocketAddress.local(of: fd)?.port ?? 0
        }
        loop.execute {
            do { try loop.register(fd, handler: listener.value) } catch { Log.error(.core, "stream listener: \(error)") }
        }
    }

    public var localPort: Int { state.withLock { $0.port } }
    public var connectionCount: Int { state.withLock { $0.connections.count } }
    public var refusedConnections: Int { state.withLock { $0.refused } }

    /// An open connection by its ID (to send a request down a flow a client opened, RFC 5626).
    public func connection(_ id: Int) -> StreamConnection? { state.withLock { $0.connections[id] } }

    /// Opens a TCP connection to `address` (a client flow: SIP toward a UAS over TCP or TLS, RFC 3261
    /// §18.1.1) kept and handled like an accepted one: `handler`'s bytes on the loop, `connection(id)`,
    /// closed by `stop()`. With `tls` (a client context) the handshake runs first, `serverName` for
    /// SNI and the certificate's name. What is sent before the connect (and handshake) completes is
    /// queued. Throws when the server is not started, is full, or the socket cannot be made.
    public func connect(to address: SocketAddress, tls: TLSContext? = nil, serverName: String? = nil,
                        handler: @escaping (StreamConnection) -> any StreamConnectionHandler) throws -> StreamConnection {
        let key = address.ipBytes
        let admitted: (Int, EventLoop)? = state.withLock { s in
            guard s.listener != nil, let loop = s.loop, s.connections.count < configuration.maxConnections else { return nil }
            s.nextID += 1
            s.perAddress[key, default: 0] += 1
            return (s.nextID, loop)
        }
        guard let (id, loop) = admitted else { throw NetError.connectionClosed }
        let fd: Int32
        var session: TLSSession?
        do {
            if let tls { session = try TLSSession(context: tls, serverName: serverName) }
            fd = try Socket.connect(to: address)
        } catch {
            release(id: id, address: key)
            throw error
        }
        let connection = StreamConnection(id: id, peer: address, loop: loop)
        let channel = TCPChannel(loop: loop, fd: fd, tls: session, connecting: true)
        channel.setOutputLimits(configuration.output)
        channel.delegate = StreamChannelBridge(connection: connection, handler: handler(connection)) { [self] in release(id: id, address: key) }
        connection.attach(channel)
        state.withLock { $0.connections[id] = connection }
        let bound = LoopBound(channel, loop: loop)
        loop.execute { bound.value.start() }
        return connection
    }

    /// Stops listening and closes every connection.
    public func stop() {
        let (listener, connections) = state.withLock { s in
            defer { s.listener = nil }
            return (s.listener, Array(s.connections.values))
        }
        if let listener { listener.loop.execute { listener.value.close() } }
        for connection in connections { connection.close() }
    }

    // MARK: On the loop

    private func accepted(_ fd: Int32, on loop: EventLoop) {
        guard let peer = SocketAddress.peer(of: fd) else { Glibc.close(fd); return }
        let address = peer.ipBytes
        let admitted: (Int, TLSContext?)? = state.withLock { s in
            guard s.listener != nil, s.connections.count < configuration.maxConnections,
                  s.perAddress[address, default: 0] < configuration.maxPerAddress else {
                s.refused += 1
                return nil
            }
            s.nextID += 1
            s.perAddress[address, default: 0] += 1
            return (s.nextID, s.tlsContext)
        }
        guard let (id, tlsContext) = admitted else { Glibc.close(fd); return }
        var session: TLSSession?
        if let tlsContext {
            do { session = try TLSSession(context: tlsContext) } catch { release(id: id, address: address); Glibc.close(fd); return }
        }
        let connection = StreamConnection(id: id, peer: peer, loop: loop)
        guard let handler = accept(connection) else { release(id: id, address: address); Glibc.close(fd); return }
        let channel = TCPChannel(loop: loop, fd: fd, tls: session, connecting: false)
        channel.setOutputLimits(configuration.output)
        connection.attach(channel)
        state.withLock { $0.connections[id] = connection }
        channel.delegate = StreamChannelBridge(connection: connection, handler: handler) { [self] in release(id: id, address: address) }
        channel.start()
    }

    private func release(id: Int, address: [UInt8]) {
        state.withLock { s in
            s.connections[id] = nil
            s.perAddress[address, default: 1] -= 1
            if s.perAddress[address] == 0 { s.perAddress[address] = nil }
        }
    }
}

/// Carries a channel's callbacks to the connection's handler.
private final class StreamChannelBridge: ChannelDelegate {
    let connection: StreamConnection
    let handler: any StreamConnectionHandler
    let onClose: () -> Void

    init(connection: StreamConnection, handler: any StreamConnectionHandler, onClose: @escaping () -> Void) {
        self.connection = connection
        self.handler = handler
        self.onClose = onClose
    }

    func channelActive(_ channel: TCPChannel) {}
    func channelRead(_ channel: TCPChannel, _ bytes: ArraySlice<UInt8>) { handler.received(bytes, on: connection) }
    func channelReadEOF(_ channel: TCPChannel) { channel.closeAfterFlush() }
    func channelClosed(_ channel: TCPChannel, error: (any Error)?) {
        connection.detach()
        onClose()
        handler.closed(connection)
    }
}
