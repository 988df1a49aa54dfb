import Synchronization
import WebSocketWire

/// Receives a server-side WebSocket's messages on its event loop, as they arrive, instead of a
/// task iterating `messages`: a connection then holds no task while it is idle. Both methods run
/// on the loop thread and must return quickly (hand slow work to a task).
public protocol WebSocketDelegate: AnyObject, Sendable {
    /// One complete data message.
    func webSocketReceived(_ message: WebSocketMessage)
    /// The connection is closed (after the close handshake, or dropped); called once, last.
    func webSocketClosed()
}

/// A WebSocket connection (RFC 6455), server- or client-side. Thread-safe: send from any task;
/// read with `receive()` or by iterating `messages` (from one task at a time), or, for sockets
/// accepted by a delegate route (`HTTPServer.addWebSocketRoute(_:accept:)`), through the delegate.
///
/// Pings from the peer are answered automatically. Messages above the size limit close the
/// connection with 1009; invalid UTF-8 text with 1007; other protocol errors with 1002.
public final class WebSocket: Sendable {
    let connection: WebSocketConnection
    private let stream: AsyncStream<WebSocketMessage>?

    /// Incoming data messages; finishes when the connection closes. Empty for a socket whose
    /// messages go to a `WebSocketDelegate`.
    public var messages: AsyncStream<WebSocketMessage> { stream ?? AsyncStream { $0.finish() } }

    /// A socket whose messages are read from `messages`.
    init(channel: TCPChannel, role: WebSocketFrameParser.Role, maxMessageBytes: Int) {
        let (stream, continuation) = AsyncStream<WebSocketMessage>.makeStream(bufferingPolicy: .unbounded)
        self.stream = stream
        connection = WebSocketConnection(channel: channel, role: role, maxMessageBytes: maxMessageBytes,
                                         delivery: .stream(continuation))
    }

    /// A server socket whose messages go to a delegate, given to `connection.attach` (no stream).
    init(delegatedChannel channel: TCPChannel, maxMessageBytes: Int) {
        stream = nil
        connection = WebSocketConnection(channel: channel, role: .server, maxMessageBytes: maxMessageBytes,
                                         delivery: .none)
    }

    /// The next message, or nil once the connection has closed.
    public func receive() async -> WebSocketMessage? {
        var iterator = messages.makeAsyncIterator()
        return await iterator.next()
    }

    /// Sends a text message. Throws `NetError.connectionClosed` after the close handshake began.
    public func send(text: String) async throws {
        try await send(.text(text))
    }

    /// Sends a binary message.
    public func send(binary: [UInt8]) async throws {
        try await send(.binary(binary))
    }

    /// Sends a message, fragmented into frames of at most `fragmentSize` bytes if given (§5.4).
    public func send(_ message: WebSocketMessage, fragmentSize: Int? = nil) async throws {
        let connection = connection
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            connection.channel.loop.execute {
                do {
                    try connection.send(message, fragmentSize: fragmentSize)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Queues a text message without waiting: messages queued from one thread go out in order
    /// (they run on the connection's loop in FIFO order). Dropped once the close handshake began.
    public func enqueue(text: String) {
        enqueue(.text(text))
    }

    /// Queues a text or binary message without waiting, as `enqueue(text:)` does.
    public func enqueue(_ message: WebSocketMessage) {
        let connection = connection
        connection.channel.loop.execute { try? connection.send(message, fragmentSize: nil) }
    }

    /// The peer's address, read from the socket: ask while the connection is open (right after
    /// the upgrade), as a closed descriptor's number may be reused.
    public var remoteAddress: SocketAddress? { SocketAddress.peer(of: connection.channel.fd) }

    /// Sends a ping and waits for the matching pong (§5.5.2, §5.5.3).
    public func ping(_ payload: [UInt8] = []) async throws {
        let connection = connection
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            connection.channel.loop.execute { connection.ping(payload, continuation: continuation) }
        }
    }

    /// Runs the close handshake (§7.1.2) and returns once the connection is closed (at most ~5 s).
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        let connection = connection
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            connection.channel.loop.execute { connection.close(code: code, reason: reason, continuation: continuation) }
        }
    }

    /// Closes the TCP connection without a close handshake, as a network failure would (the peer
    /// sees 1006). Returns once it is closed.
    public func abort() async {
        let connection = connection
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            connection.channel.loop.execute {
                connection.channel.close()
                continuation.resume()
            }
        }
    }

    /// Starts the close handshake without waiting for it (from any thread).
    public func startClose(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        let connection = connection
        connection.channel.loop.execute { connection.close(code: code, reason: reason, continuation: nil) }
    }

    /// Stops delivering messages to the delegate or stream (and reading from the socket) until
    /// `resumeReading()`: the consumer's back-pressure. From any thread; on the loop (inside
    /// `webSocketReceived`) it takes effect before the next message.
    public func pauseReading() { onLoop { $0.setDeliveryPaused(true) } }

    /// Delivers messages again, starting with those that waited.
    public func resumeReading() { onLoop { $0.setDeliveryPaused(false) } }

    /// The application's protocol authenticated the peer (e.g. a verified `hello`): the socket no
    /// longer counts against its address's cap of unauthenticated connections.
    public func markAuthenticated() { onLoop { $0.markAuthenticated() } }

    /// Runs `body` with the connection now if on its loop, else soon on the loop.
    private func onLoop(_ body: @escaping @Sendable (WebSocketConnection) -> Void) {
        let connection = connection
        if connection.channel.loop.inEventLoop { body(connection) } else { connection.channel.loop.execute { body(connection) } }
    }

    /// The peer's close code once closed: its close frame's code, 1005 for an empty close frame,
    /// 1006 if the connection dropped, or the code we failed the connection with (1002/1007/1009).
    public var closeCode: WebSocketCloseCode? { connection.closeStatus.withLock { $0?.code } }

    /// True once the peer closed on purpose: it started the close handshake with 1000 (normal
    /// closure), rather than dropping, failing, or answering our close.
    public var closedNormallyByPeer: Bool { connection.peerFinished.load(ordering: .relaxed) }

    /// The peer's close reason, if any.
    public var closeReason: String? { connection.closeStatus.withLock { $0?.reason } }
}
