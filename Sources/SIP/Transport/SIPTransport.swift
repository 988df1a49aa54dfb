import ParleyCore
import ParleyCrypto
import ParleyNet
import SIPWire
import Synchronization

/// SIP's transports on one event loop (RFC 3261 §18): a UDP socket and, optionally, a TCP and a
/// TLS listener, framed with `SIPStreamFramer` (RFC 5626 §3.5.1 CRLF keepalives answered).
/// Messages that parse go to `onMessage` on the loop thread; bytes that do not are counted and,
/// when they read as a request, answered 400 by `onMalformed`'s caller. Over 64 KB a stream is
/// closed; a datagram is dropped.
public final class SIPTransport: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var tcp = true
        public var tls: TLSConfiguration?
        public var tlsPort = 0
        /// How connections we open over TLS (`sips:`) check the far end: the system's roots by
        /// default, `trustRootsPath` for a private CA.
        public var tlsClient = TLSConfiguration()
        public var limits = SIPLimits.default
        public init(host: String = "127.0.0.1", port: Int = 5060) {
            self.host = host
            self.port = port
        }
    }

    public typealias MessageHandler = @Sendable (SIPMessage, SIPPeer) -> Void

    /// Counters for `/metrics`.
    public struct Statistics: Sendable, Hashable {
        public var received = 0
        public var sent = 0
        public var malformed = 0
        public var oversized = 0
        public var keepalives = 0
    }

    public let configuration: Configuration
    public let loop: EventLoop
    /// SIP over WebSocket's sockets (RFC 7118; `SIPWebSocketTransport.swift`).
    public let webSockets = SIPWebSocketLinks()
    private let onMessage: MessageHandler
    private let state = Mutex(State())
    /// Set on the loop while a received UDP batch is handled: answers wait in the socket's send
    /// batch and leave together (one `sendmmsg`) when the batch is done.
    private let receivingBatch = Atomic<Bool>(false)

    private struct State {
        var udp: UDPSocket?
        var tcp: StreamServer?
        var tls: StreamServer?
        var statistics = Statistics()
        /// Connections we opened (`connect`), by their negative peer IDs.
        var outbound: [Int: StreamConnection] = [:]
        var nextOutbound = 0
        var clientTLS: TLSContext?
        var outboundClosed: (@Sendable (SIPPeer) -> Void)?
        var webSocketClosed: [@Sendable (SIPPeer) -> Void] = []
        var stopping: [@Sendable () -> Void] = []
    }

    public init(configuration: Configuration, loop: EventLoop, onMessage: @escaping MessageHandler) {
        self.configuration = configuration
        self.loop = loop
        self.onMessage = onMessage
    }

    public func start() throws {
        let limits = configuration.limits
        let udp = try UDPSocket.inPlace(host: configuration.host, port: configuration.port, loop: loop, batchSize: 16,
                                        maxDatagramBytes: limits.maxMessageBytes, sendBatchSize: 16) { [self] batch in
            receivingBatch.store(true, ordering: .relaxed)
            for index in 0..<batch.count { receivedDatagram(batch[index]) }
            receivingBatch.store(false, ordering: .relaxed)
            state.withLock { $0.udp }?.sendBatch.flush()
        }
        state.withLock { $0.udp = udp }
        if configuration.tcp {
            let tcp = StreamServer(configuration: .init(host: configuration.host, port: udp.localPort)) { [self] connection in
                SIPStreamHandler(transport: self, kind: .tcp, limits: limits)
            }
            try tcp.start(on: loop)
            state.withLock { $0.tcp = tcp }
        }
        if let tlsConfiguration = configuration.tls {
            let tls = StreamServer(configuration: .init(host: configuration.host, port: configuration.tlsPort, tls: tlsConfiguration)) { [self] _ in
                SIPStreamHandler(transport: self, kind: .tls, limits: limits)
            }
            try tls.start(on: loop)
            state.withLock { $0.tls = tls }
        }
        Log.info(.core, "SIP listening on \(configuration.host):\(udp.localPort) (UDP\(configuration.tcp ? ", TCP" : "")"
                 + "\(configuration.tls == nil ? "" : "; TLS on \(tlsPort)"))")
    }

    public var udpPort: Int { state.withLock { $0.udp?.localPort ?? 0 } }
    public var tcpPort: Int { state.withLock { $0.tcp?.localPort ?? 0 } }
    public var tlsPort: Int { state.withLock { $0.tls?.localPort ?? 0 } }
    public var statistics: Statistics { state.withLock { $0.statistics } }

    public func stop() {
        let (udp, tcp, tls) = state.withLock { s in
            defer { (s.udp, s.tcp, s.tls) = (nil, nil, nil) }
            return (s.udp, s.tcp, s.tls)
        }
        udp?.close()
        tcp?.stop()
        tls?.stop()
        webSockets.closeAll()
        for handler in state.withLock({ $0.stopping }) { handler() }
    }

    /// Called by `stop()` (on its thread) once the sockets are closed: a service writes out what it holds.
    public func onStop(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.stopping.append(handler) }
    }

    /// Called on the loop when a SIP-over-WebSocket peer's socket has closed (after its last
    /// message): that flow is gone (RFC 5626 §5.3; RFC 7118 §5.3: nothing else reaches it).
    public func onWebSocketClosed(_ handler: @escaping @Sendable (SIPPeer) -> Void) {
        state.withLock { $0.webSocketClosed.append(handler) }
    }

    func webSocketClosed(_ peer: SIPPeer) {
        let handlers = state.withLock { $0.webSocketClosed }
        guard !handlers.isEmpty else { return }
        loop.execute { for handler in handlers { handler(peer) } }
    }

    /// Sends `message` to `peer`: a datagram, or down the stream connection it came on.
    public func send(_ message: SIPMessage, to peer: SIPPeer) {
        send(bytes: message.serialized(), to: peer)
    }

    func send(bytes: [UInt8], to peer: SIPPeer) {
        let (udp, tcp, tls, opened) = state.withLock { s in
            s.statistics.sent += 1
            return (s.udp, s.tcp, s.tls, peer.connection.flatMap { s.outbound[$0] })
        }
        if let id = peer.connection, id < 0 { return opened?.send(bytes) ?? () }
        switch peer.transport {
        case .udp:
            guard let udp else { return }
            guard loop.inEventLoop else { return udp.send([Datagram(address: peer.address, bytes: bytes)]) }
            udp.sendBatch.append(bytes, to: peer.address)
            if !receivingBatch.load(ordering: .relaxed) { udp.sendBatch.flush() }
        case .tcp: peer.connection.flatMap { tcp?.connection($0) }?.send(bytes)
        case .tls: peer.connection.flatMap { tls?.connection($0) }?.send(bytes)
        case .ws, .wss: sendWebSocket(bytes, to: peer)
        }
    }

    /// Opens a TCP or TLS connection to `address` for requests we originate (RFC 3261 §18.1.1;
    /// TLS checks the certificate against `serverName` with `tlsClient`): the peer to send them
    /// to, its connection a negative ID of ours. What comes back on it (responses, the far end's
    /// requests) is delivered as on any connection. Throws when TCP is off or the connect cannot start.
    public func connect(_ kind: SIPPeer.Transport, to address: SocketAddress, serverName: String? = nil) throws -> SIPPeer {
        guard kind != .udp, let tcp = state.withLock({ $0.tcp }) else { throw NetError.connectionClosed }
        let context = kind == .tls ? try clientTLSContext() : nil
        let id = state.withLock { s -> Int in
            s.nextOutbound -= 1
            return s.nextOutbound
        }
        let limits = configuration.limits
        let connection = try tcp.connect(to: address, tls: context, serverName: serverName) { [self] _ in
            SIPStreamHandler(transport: self, kind: kind, limits: limits, peerID: id)
        }
        state.withLock { $0.outbound[id] = connection }
        return SIPPeer(transport: kind, address: address, connection: id)
    }

    private func clientTLSContext() throws -> TLSContext {
        if let context = state.withLock({ $0.clientTLS }) { return context }
        let context = try TLSContext(configuration: configuration.tlsClient, isServer: false)
        state.withLock { $0.clientTLS = context }
        return context
    }

    /// Called when a connection `connect` opened closes (refused, a failed TLS handshake, the far
    /// end's close), with the peer `connect` returned.
    public func onOutboundClosed(_ handler: @escaping @Sendable (SIPPeer) -> Void) {
        state.withLock { $0.outboundClosed = handler }
    }

    /// Whether a connection `connect` opened for `peer` is still open (true for other peers).
    public func isConnected(_ peer: SIPPeer) -> Bool {
        guard let id = peer.connection, id < 0 else { return true }
        return state.withLock { $0.outbound[id] != nil }
    }

    /// A connection we opened closed.
    fileprivate func forget(outbound id: Int, peer: SIPPeer) {
        let handler = state.withLock { s in
            s.outbound.removeValue(forKey: id)
            return s.outboundClosed
        }
        handler?(peer)
    }

    /// One datagram, in the receive buffer (valid during this call only).
    private func receivedDatagram(_ datagram: UDPReceivedDatagram) {
        let bytes = UnsafeRawBufferPointer(datagram.bytes)
        // RFC 5626 §4.4.1: a STUN keepalive or a CRLF ping on UDP carries no message.
        if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) {
            count(\.keepalives)
            return
        }
        let peer = SIPPeer(transport: .udp, address: datagram.address)
        do {
            let message = try SIPMessage.parse(datagram: bytes, limits: configuration.limits)
            deliver(message, from: peer)
        } catch {
            rejectMalformed(error, from: peer)
        }
    }

    func deliver(_ message: SIPMessage, from peer: SIPPeer) {
        do throws(SIPParseError) {
            try message.validate()
        } catch {
            if let request = message.request, request.method != .ack {
                send(.response(SIPResponse(replyingTo: request, error: error)), to: peer)
            }
            count(\.malformed)
            return
        }
        count(\.received)
        onMessage(message, peer)
    }

    func rejectMalformed(_ error: SIPParseError, from peer: SIPPeer) {
        if case .messageTooLarge = error { count(\.oversized) } else { count(\.malformed) }
        Log.debug(.core, "SIP: dropped a message from \(peer): \(error.detail)")
    }

    func count(_ counter: WritableKeyPath<Statistics, Int>) {
        state.withLock { $0.statistics[keyPath: counter] += 1 }
    }
}

/// One TCP or TLS connection's framing (RFC 3261 §18.3): messages by Content-Length, CRLF pings
/// answered with a pong (RFC 5626 §3.5.1), the connection closed on a framing error.
private final class SIPStreamHandler: StreamConnectionHandler {
    let transport: SIPTransport
    let kind: SIPPeer.Transport
    var framer: SIPStreamFramer
    /// A connection we opened: the peer's ID in the transport's `outbound` table.
    let peerID: Int?

    init(transport: SIPTransport, kind: SIPPeer.Transport, limits: SIPLimits, peerID: Int? = nil) {
        self.transport = transport
        self.kind = kind
        self.peerID = peerID
        framer = SIPStreamFramer(role: .server, limits: limits)
    }

    func received(_ bytes: ArraySlice<UInt8>, on connection: StreamConnection) {
        framer.append(bytes)
        let peer = SIPPeer(transport: kind, address: connection.peer, connection: peerID ?? connection.id)
        while true {
            do {
                guard let event = try framer.next() else { return }
                switch event {
                case .message(let message): transport.deliver(message, from: peer)
                case .ping:
                    transport.count(\.keepalives)
                    connection.send([0x0D, 0x0A])
                case .pong: transport.count(\.keepalives)
                }
            } catch {
                transport.rejectMalformed(error, from: peer)
                connection.close()
                return
            }
        }
    }

    func closed(_ connection: StreamConnection) {
        if let peerID { transport.forget(outbound: peerID, peer: SIPPeer(transport: kind, address: connection.peer, connection: peerID)) }
    }
}
