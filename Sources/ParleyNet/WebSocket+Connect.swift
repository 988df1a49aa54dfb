import HTTPWire
import ParleyCrypto
import WebSocketWire

extension WebSocket {
    /// The loops client sockets run on unless a group is passed (one thread, started on first use).
    static let sharedClientGroup: EventLoopGroup = {
        do { return try EventLoopGroup(threads: 1, name: "ws-client") } catch { fatalError("event loop: \(error)") }
    }()

    /// Opens a client WebSocket to `url` (`ws://` or `wss://`) with the opening handshake of
    /// RFC 6455 §4.1. `headers` are added to the upgrade request (e.g. `Authorization`).
    public static func connect(url: String, headers: HTTPHeaders = HTTPHeaders(), maxMessageBytes: Int = 1 << 20,
                               tls: TLSConfiguration = .client(), timeout: Duration = .seconds(10),
                               group: EventLoopGroup? = nil) async throws -> WebSocket {
        let endpoint = try Endpoint(url: url)
        var tlsContext: TLSContext?
        if endpoint.useTLS {
            do { tlsContext = try TLSContext(configuration: tls, isServer: false) } catch { throw NetError.tls(error.message) }
        }
        let key = WebSocketHandshake.makeKey(randomBytes: SecureRandom.bytes(16))
        var request = HTTPRequest(method: "GET", target: endpoint.target, headers: headers)
        for field in WebSocketHandshake.requestHeaders(host: endpoint.hostHeader, key: key) {
            request.headers.set(field.name, field.value)
        }
        let fd = try ClientChannel.connect(endpoint)
        let loop = (group ?? sharedClientGroup).next()
        let bound = LoopBound(WebSocketClientHandshake(loop: loop, request: request, key: key, maxMessageBytes: maxMessageBytes),
                              loop: loop)
        return try await withCheckedThrowingContinuation { [tlsContext] continuation in
            loop.execute {
                let handshake = bound.value
                do {
                    handshake.channel = try ClientChannel.open(fd: fd, loop: loop, endpoint: endpoint,
                                                               tlsContext: tlsContext, delegate: handshake)
                } catch {
                    return continuation.resume(throwing: error)
                }
                handshake.begin(timeout: timeout, continuation: continuation)
            }
        }
    }
}

/// Loop-side client handshake: sends the upgrade request, checks the 101, then hands the channel
/// to a `WebSocketConnection`. Loop-confined: carried in a `LoopBound`.
final class WebSocketClientHandshake: ChannelDelegate {
    let loop: EventLoop
    let request: HTTPRequest
    let key: String
    let maxMessageBytes: Int
    var channel: TCPChannel?
    private var parser = HTTPResponseParser()
    private var continuation: CheckedContinuation<WebSocket, any Error>?
    private var timer: TimerQueue.ID?

    init(loop: EventLoop, request: HTTPRequest, key: String, maxMessageBytes: Int) {
        self.loop = loop
        self.request = request
        self.key = key
        self.maxMessageBytes = maxMessageBytes
    }

    func begin(timeout: Duration, continuation: CheckedContinuation<WebSocket, any Error>) {
        self.continuation = continuation
        timer = loop.scheduleTimer(after: timeout) { [weak self] in self?.fail(NetError.timeout) }
        if channel?.state == .active { channel?.write(request.serialized) }
    }

    func channelActive(_ channel: TCPChannel) {
        if continuation != nil { channel.write(request.serialized) }
    }

    func channelRead(_ channel: TCPChannel, _ bytes: ArraySlice<UInt8>) {
        parser.append(bytes)
        let response: HTTPResponse
        do {
            guard let parsed = try parser.next(requestMethod: "GET") else { return }
            response = parsed
            try WebSocketHandshake.validateResponse(status: response.status, headers: response.headers.fields,
                                                    key: key, sha1: { Digest.sha1($0) })
        } catch {
            return fail(NetError.handshakeFailed("\(error)"))
        }
        guard let continuation else { return }
        self.continuation = nil
        loop.cancelTimer(timer)
        let socket = WebSocket(channel: channel, role: .client, maxMessageBytes: maxMessageBytes)
        socket.connection.attach(initialBytes: parser.takeBufferedBytes())
        continuation.resume(returning: socket)
    }

    func channelReadEOF(_ channel: TCPChannel) { fail(NetError.handshakeFailed("connection closed")) }

    func channelClosed(_ channel: TCPChannel, error: (any Error)?) {
        fail(error ?? NetError.handshakeFailed("connection closed"))
    }

    private func fail(_ error: any Error) {
        loop.cancelTimer(timer)
        timer = nil
        if let continuation {
            self.continuation = nil
            continuation.resume(throwing: error)
        }
        channel?.close()
    }
}
