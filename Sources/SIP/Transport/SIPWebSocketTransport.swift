import ParleyCore
import ParleyNet
import SIPWire
import Synchronization
import WebSocketWire

/// SIP over WebSocket (RFC 7118) beside SIP's UDP, TCP and TLS: the server's HTTP listener
/// upgrades a path with the `sip` subprotocol (RFC 7118 §4) and hands each socket to
/// `SIPTransport.accept(webSocket:secure:)`. Every WebSocket message is one SIP message (§5: no
/// Content-Length framing), parsed like a datagram and delivered to the transport's handler with
/// a `ws`/`wss` peer; answers and requests to that peer go down the same socket (§5.3: a
/// WebSocket client is reachable no other way).
///
/// The live sockets, by the connection id of their peers and by the `ws:ADDRESS:PORT` source a
/// registrar binding keeps, so calls reach a contact registered over a WebSocket.
public final class SIPWebSocketLinks: Sendable {
    private struct State {
        var links: [Int: SIPWebSocketLink] = [:]
        var bySource: [String: Int] = [:]
        var nextID = 1
        var closed = false
        var port = 0
    }

    private let state = Mutex(State())

    init() {}

    /// The HTTP listener's port, which our Via and Contact name for `ws`/`wss` peers.
    public var port: Int {
        get { state.withLock { $0.port } }
        set { state.withLock { $0.port = newValue } }
    }

    /// Sockets open now.
    public var count: Int { state.withLock { $0.links.count } }

    /// The peer of the open socket a binding's `source` (`ws:127.0.0.1:50312`) names, if any.
    public func peer(forSource source: String) -> SIPPeer? {
        state.withLock { s in s.bySource[source].flatMap { s.links[$0]?.peer } }
    }

    func link(_ id: Int?) -> SIPWebSocketLink? {
        guard let id else { return nil }
        return state.withLock { $0.links[id] }
    }

    /// A connection id for a new socket, or nil once the transport stopped.
    func add(_ make: (Int) -> SIPWebSocketLink) -> SIPWebSocketLink? {
        state.withLock { s in
            guard !s.closed else { return nil }
            let id = s.nextID
            s.nextID += 1
            let link = make(id)
            s.links[id] = link
            s.bySource[link.peer.description] = id
            return link
        }
    }

    func remove(_ link: SIPWebSocketLink) {
        state.withLock { s in
            guard let id = link.peer.connection, s.links[id] === link else { return }
            s.links[id] = nil
            if s.bySource[link.peer.description] == id { s.bySource[link.peer.description] = nil }
        }
    }

    /// Closes every socket (1001) and takes no more: the transport is stopping.
    func closeAll() {
        let links = state.withLock { s in
            s.closed = true
            defer { (s.links, s.bySource) = ([:], [:]) }
            return Array(s.links.values)
        }
        for link in links { link.socket.startClose(code: .goingAway, reason: "SIP service stopping") }
    }
}

/// One WebSocket's SIP messages into the transport, and the transport's out. Messages hop from
/// the HTTP loop to SIP's loop; while more than `maxWaiting` wait there the socket stops reading
/// (back-pressure), and reads again once at most `resumeAt` wait.
final class SIPWebSocketLink: WebSocketDelegate {
    static let maxWaiting = 64
    static let resumeAt = 16

    let socket: WebSocket
    let peer: SIPPeer
    private let transport: SIPTransport
    private let waiting = Atomic<Int>(0)
    private let paused = Atomic<Bool>(false)

    init(socket: WebSocket, peer: SIPPeer, transport: SIPTransport) {
        self.socket = socket
        self.peer = peer
        self.transport = transport
    }

    /// On the HTTP loop: one SIP message (text or binary, RFC 7118 §5.1).
    func webSocketReceived(_ message: WebSocketMessage) {
        let bytes: [UInt8] = switch message {
        case .text(let text): Array(text.utf8)
        case .binary(let bytes): bytes
        }
        if waiting.add(1, ordering: .relaxed).newValue >= Self.maxWaiting {
            paused.store(true, ordering: .relaxed)
            socket.pauseReading()
            resumeIfDrained()  // SIP's loop may have emptied the queue meanwhile
        }
        transport.loop.execute { [self] in
            transport.receivedWebSocketMessage(bytes, from: peer)
            waiting.subtract(1, ordering: .relaxed)
            resumeIfDrained()
        }
    }

    private func resumeIfDrained() {
        guard waiting.load(ordering: .relaxed) <= Self.resumeAt, paused.exchange(false, ordering: .relaxed) else { return }
        socket.resumeReading()
    }

    /// A message too big for a SIP message (over 64 KB) closed it with 1009: counted as oversized.
    func webSocketClosed() {
        if socket.closeCode == .messageTooBig { transport.count(\.oversized) }
        transport.webSockets.remove(self)
        transport.webSocketClosed(peer)
    }

    /// A message to the peer: text when it is UTF-8 (SIP's usual), else binary (RFC 7118 §5.1).
    func send(_ bytes: [UInt8]) {
        if let text = String(validating: bytes, as: UTF8.self) {
            socket.enqueue(.text(text))
        } else {
            socket.enqueue(.binary(bytes))
        }
    }
}

extension SIPTransport {
    /// Takes a freshly upgraded socket (on the HTTP loop, as a `WebSocketAcceptor` runs) and
    /// returns its delegate; `secure` when the listener is HTTPS (`wss`). After `stop()` the
    /// socket is closed at once (also one whose peer is already gone).
    public func accept(webSocket: WebSocket, secure: Bool) -> any WebSocketDelegate {
        guard let address = webSocket.remoteAddress, let link = webSockets.add({ id in
            SIPWebSocketLink(socket: webSocket, peer: SIPPeer(transport: secure ? .wss : .ws, address: address, connection: id),
                             transport: self)
        }) else {
            return Self.refuse(webSocket)
        }
        Log.debug(.core, "SIP: WebSocket \(link.peer) open")
        return link
    }

    /// Closes a socket no SIP service takes (1001, "SIP service stopping") and returns its delegate.
    public static func refuse(_ webSocket: WebSocket) -> any WebSocketDelegate {
        webSocket.startClose(code: .goingAway, reason: "SIP service stopping")
        return SIPWebSocketRefusal()
    }

    /// The peer authenticated (a REGISTER was accepted): its WebSocket no longer counts against
    /// the HTTP listener's cap of unauthenticated connections per address.
    public func authenticated(_ peer: SIPPeer) {
        guard peer.transport == .ws || peer.transport == .wss else { return }
        webSockets.link(peer.connection)?.socket.markAuthenticated()
    }

    /// The port our Via and Contact name for a peer's transport.
    public func localPort(for transport: SIPPeer.Transport) -> Int {
        switch transport {
        case .udp: udpPort
        case .tcp: tcpPort
        case .tls: tlsPort
        case .ws, .wss: webSockets.port
        }
    }

    /// Down the socket the peer's messages came on; dropped when it has closed.
    func sendWebSocket(_ bytes: [UInt8], to peer: SIPPeer) {
        webSockets.link(peer.connection)?.send(bytes)
    }

    /// One message from a socket, on SIP's loop. RFC 5626 §3.5.1 keepalives as SIP.js sends them
    /// (a CRLFCRLF ping gets a CRLF pong); bytes that do not parse are counted and dropped — the
    /// WebSocket frames the messages, so the socket stays usable; a message that parses but is
    /// not valid gets its 400 in `deliver`.
    func receivedWebSocketMessage(_ bytes: [UInt8], from peer: SIPPeer) {
        if !bytes.isEmpty, bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) {
            count(\.keepalives)
            if bytes.count >= 4 { sendWebSocket([0x0D, 0x0A], to: peer) }
            return
        }
        do {
            deliver(try SIPMessage.parse(datagram: bytes, limits: configuration.limits), from: peer)
        } catch {
            rejectMalformed(error, from: peer)
        }
    }
}

/// The delegate of a socket no transport takes: it is closing already.
private final class SIPWebSocketRefusal: WebSocketDelegate {
    func webSocketReceived(_ message: WebSocketMessage) {}
    func webSocketClosed() {}
}
