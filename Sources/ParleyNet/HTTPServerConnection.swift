import HTTPWire
import ParleyCore
import ParleyCrypto
import WebSocketWire

/// One server-side HTTP/1.1 connection: parses requests, runs the handler as a task for one request
/// at a time (pipelined requests wait in the parser), writes responses in order, enforces timeouts,
/// and hands the channel to a WebSocket after an upgrade.
///
/// `@unchecked Sendable`: loop-confined; tasks reach it only through `loop.execute`.
final class HTTPServerConnection: ChannelDelegate, @unchecked Sendable {
    let server: HTTPServer
    let channel: TCPChannel
    let id: Int
    var loop: EventLoop { channel.loop }
    private var parser: HTTPRequestParser
    private var inFlight = false
    private var closing = false
    private var shuttingDown = false
    private var webSocket: WebSocket?
    private var lastActivity = monotonicNanos()
    private var requestStart: UInt64?
    private var timer: TimerQueue.ID?
    private var responseBuffer: [UInt8] = []

    init(server: HTTPServer, channel: TCPChannel, id: Int) {
        self.server = server
        self.channel = channel
        self.id = id
        parser = HTTPRequestParser(limits: server.configuration.limits)
    }

    func start() {
        channel.start()
        armTimer()
    }

    // MARK: Channel events

    func channelActive(_ channel: TCPChannel) {}

    func channelRead(_ channel: TCPChannel, _ bytes: ArraySlice<UInt8>) {
        guard !closing else { return }
        lastActivity = monotonicNanos()
        if requestStart == nil && !inFlight {
            // A new request began: its header deadline is usually earlier than the idle one.
            requestStart = lastActivity
            loop.cancelTimer(timer)
            timer = nil
            armTimer()
        }
        parser.append(bytes)
        processBuffered()
    }

    func channelReadEOF(_ channel: TCPChannel) {
        // A client that half-closes after its request still gets the response.
        if inFlight { closing = true } else { channel.close() }
    }

    func channelClosed(_ channel: TCPChannel, error: (any Error)?) {
        loop.cancelTimer(timer)
        timer = nil
        if webSocket == nil { server.connectionClosed(id) }
    }

    // MARK: Requests

    private func processBuffered() {
        while !inFlight && !closing && webSocket == nil && channel.isOpen {
            let request: HTTPRequest?
            do {
                request = try parser.next()
            } catch {
                return reject(error.status, "\(error)")
            }
            guard let request else {
                if parser.takeContinueRequest() { channel.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
                if !parser.hasPartialRequest { requestStart = nil }
                return
            }
            dispatch(request)
        }
    }

    private func dispatch(_ request: HTTPRequest) {
        requestStart = nil
        if request.headers.tokens("Upgrade").contains("websocket"), let route = server.webSocketRoute(request.path) {
            return upgrade(request, route)
        }
        inFlight = true
        let handler = server.handler
        Task { [self] in
            let response = await handler(request)
            loop.execute { [self] in respond(to: request, with: response) }
        }
    }

    private func respond(to request: HTTPRequest, with response: HTTPResponse) {
        inFlight = false
        guard channel.isOpen else { return }
        var response = response
        let close = closing || shuttingDown || !request.keepAlive || response.headers.tokens("Connection").contains("close")
        if close {
            response.headers.set("Connection", "close")
        } else if request.version == .http1_0 {
            response.headers.set("Connection", "keep-alive")
        }
        responseBuffer.removeAll(keepingCapacity: true)
        response.serialize(into: &responseBuffer, omitBody: request.method == "HEAD")
        channel.write(responseBuffer)
        lastActivity = monotonicNanos()
        if close {
            closing = true
            channel.closeAfterFlush(linger: parser.bufferedByteCount > 0)
            return
        }
        if parser.hasPartialRequest { requestStart = lastActivity }
        armTimer()
        processBuffered()
    }

    /// Answers an unparseable or timed-out request and closes (RFC 9112 §9.6).
    private func reject(_ status: Int, _ detail: String) {
        Log.debug(.core, "HTTP connection \(id): \(status) \(detail)")
        closing = true
        var response = HTTPResponse.text("\(HTTPStatus.reason(status))\n", status: status)
        response.headers.set("Connection", "close")
        responseBuffer.removeAll(keepingCapacity: true)
        response.serialize(into: &responseBuffer)
        channel.write(responseBuffer)
        channel.closeAfterFlush(linger: true)
    }

    // MARK: WebSocket upgrade (RFC 6455 §4.2.2)

    private func upgrade(_ request: HTTPRequest, _ route: HTTPServer.WebSocketRoute) {
        let key: String
        do {
            key = try WebSocketHandshake.validateRequest(method: request.method, headers: request.headers.fields)
        } catch .unsupportedVersion {
            closing = true
            let response = HTTPResponse(status: 426, headers: ["Sec-WebSocket-Version": "13", "Connection": "close"])
            channel.write(response.serialized)
            return channel.closeAfterFlush(linger: true)
        } catch {
            return reject(400, "bad WebSocket handshake: \(error)")
        }
        let fields = WebSocketHandshake.responseHeaders(key: key, sha1: { Digest.sha1($0) })
        channel.write(HTTPResponse(status: 101, headers: HTTPHeaders(fields.map { ($0.name, $0.value) })).serialized)
        loop.cancelTimer(timer)
        timer = nil
        let maxMessageBytes = server.configuration.webSocketMaxMessageBytes
        let socket: WebSocket
        var delegate: (any WebSocketDelegate)?
        switch route {
        case .task:
            socket = WebSocket(channel: channel, role: .server, maxMessageBytes: maxMessageBytes)
        case .delegate(let accept):
            socket = WebSocket(delegatedChannel: channel, maxMessageBytes: maxMessageBytes)
            delegate = accept(request, socket)
        }
        webSocket = socket
        let server = server, id = id
        socket.connection.onClosed = { server.connectionClosed(id) }
        socket.connection.attach(initialBytes: parser.takeBufferedBytes(), delegate: delegate)
        if shuttingDown { socket.connection.close(code: .goingAway, reason: "server shutting down", continuation: nil) }
        guard case .task(let handler) = route else { return }
        Task {
            await handler(request, socket)
            await socket.close(code: .normalClosure)
        }
    }

    // MARK: Timeouts and shutdown

    private func armTimer() {
        guard timer == nil, webSocket == nil, !closing else { return }
        let configuration = server.configuration
        let deadline: UInt64
        if let start = requestStart, !parser.isReadingBody {
            deadline = start + configuration.headerTimeout.nanoseconds
        } else {
            deadline = lastActivity + configuration.idleTimeout.nanoseconds
        }
        let now = monotonicNanos()
        let delay = Duration.nanoseconds(Int64(deadline > now ? deadline - now : 0))
        timer = loop.scheduleTimer(after: delay) { [weak self] in self?.timerFired() }
    }

    private func timerFired() {
        timer = nil
        guard !inFlight, !closing, webSocket == nil, channel.isOpen else { return }
        let now = monotonicNanos()
        let configuration = server.configuration
        if let start = requestStart, !parser.isReadingBody {
            if now >= start + configuration.headerTimeout.nanoseconds { return reject(408, "header timeout") }
        } else if now >= lastActivity + configuration.idleTimeout.nanoseconds {
            if parser.hasPartialRequest { return reject(408, "body timeout") }
            return channel.close()
        }
        armTimer()
    }

    /// Graceful shutdown: idle connections close now; a request in progress finishes with
    /// `Connection: close`; WebSockets get 1001 (RFC 6455 §7.4.1).
    func beginShutdown() {
        shuttingDown = true
        if let webSocket {
            webSocket.connection.close(code: .goingAway, reason: "server shutting down", continuation: nil)
        } else if !inFlight && !parser.hasPartialRequest {
            channel.close()
        }
    }

    func forceClose() { channel.close() }
}
