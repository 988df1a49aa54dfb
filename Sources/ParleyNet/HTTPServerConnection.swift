import HTTPWire
import ParleyCore
import ParleyCrypto
import WebSocketWire

/// One server-side HTTP/1.1 connection: parses requests, runs the handler as a task for one request
/// at a time (pipelined requests wait in the parser), writes responses in order, enforces timeouts,
/// and hands the channel to a WebSocket after an upgrade.
///
/// Bounded against clients that do not play fair: a request with a body is first shown to the
/// server's admission check by its head alone (nothing of the body is read until it passes); body
/// bytes count against the server-wide budget; reading stops while a request is in flight and the
/// next ones pile up, or while the client does not read its responses (`TCPChannel` back-pressure);
/// a request must arrive whole within `requestTimeout`.
///
/// Loop-confined (not `Sendable`): tasks reach it through a `LoopBound` and `loop.execute`.
final class HTTPServerConnection: ChannelDelegate {
    /// Pipelined bytes held while a request is in flight before reading stops.
    static let pipelineHoldBytes = 64 * 1024

    let server: HTTPServer
    let channel: TCPChannel
    let id: Int
    var loop: EventLoop { channel.loop }
    private var parser: HTTPRequestParser
    private var inFlight = false
    private var inFlightBodyBytes = 0
    private var closing = false
    private var shuttingDown = false
    private var webSocket: WebSocket?
    private var lastActivity = monotonicNanos()
    private var requestStart: UInt64?
    private var timer: TimerQueue.ID?
    private var responseBuffer: [UInt8] = []
    /// The admission check of the pending request's head is running / has passed.
    private var admitting = false
    private var pendingAdmitted = false
    /// Held back from reading by this connection (not by the channel's own back-pressure).
    private var holdingReads = false
    /// Body bytes taken from the server's budget.
    private var reservedBodyBytes = 0
    /// Source address while the connection counts against its unauthenticated cap.
    private var unauthenticatedAddress: [UInt8]?

    init(server: HTTPServer, channel: TCPChannel, id: Int, address: [UInt8]) {
        self.server = server
        self.channel = channel
        self.id = id
        unauthenticatedAddress = address
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
            rearmTimer()
        }
        parser.append(bytes)
        processBuffered()
    }

    func channelReadEOF(_ channel: TCPChannel) {
        // A client that half-closes after its request still gets the response.
        if inFlight || admitting { closing = true } else { channel.close() }
    }

    func channelDrained(_ channel: TCPChannel) { processBuffered() }

    func channelClosed(_ channel: TCPChannel, error: (any Error)?) {
        loop.cancelTimer(timer)
        timer = nil
        releaseBodyBytes()
        releaseUnauthenticated()
        if webSocket == nil { server.connectionClosed(id) }
    }

    // MARK: Requests

    private func processBuffered() {
        while !inFlight && !admitting && !closing && webSocket == nil && channel.isOpen && !channel.isOutputFull {
            let request: HTTPRequest?
            do {
                request = try parser.next()
            } catch {
                return reject(error.status, "\(error)")
            }
            guard let request else {
                guard accountBodyBytes() else { return }
                if server.admission != nil, !pendingAdmitted, let head = parser.pendingHead { return admit(head) }
                if parser.takeContinueRequest() { channel.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
                if !parser.hasPartialRequest { requestStart = nil }
                break
            }
            pendingAdmitted = false
            dispatch(request)
        }
        updateReadHold()
    }

    /// Stops reading while the admission check runs, or while a request is in flight and the
    /// next ones already fill the hold; reads again once neither holds.
    private func updateReadHold() {
        let hold = webSocket == nil && channel.isOpen
            && (admitting || (inFlight && parser.bufferedByteCount >= Self.pipelineHoldBytes))
        guard hold != holdingReads else { return }
        holdingReads = hold
        if hold { channel.pauseReading() } else { channel.resumeReading() }
    }

    private func admit(_ head: HTTPRequest) {
        guard let admission = server.admission else { return }
        admitting = true
        updateReadHold()
        let bound = LoopBound(self, loop: loop)
        Task {
            let refusal = await admission(head)
            bound.loop.execute { bound.value.admitted(refusal) }
        }
    }

    private func admitted(_ refusal: HTTPResponse?) {
        admitting = false
        guard channel.isOpen else { return }
        if let refusal { return refuse(refusal) }
        pendingAdmitted = true
        rearmTimer()
        processBuffered()
    }

    private func dispatch(_ request: HTTPRequest) {
        requestStart = nil
        if request.headers.tokens("Upgrade").contains("websocket"), let route = server.webSocketRoute(request.path) {
            return upgrade(request, route.route, subprotocol: route.subprotocol)
        }
        inFlight = true
        inFlightBodyBytes = request.body.count
        _ = accountBodyBytes()
        let handler = server.handler
        let bound = LoopBound(self, loop: loop)
        Task {
            let response = await handler(request)
            bound.loop.execute { bound.value.respond(to: request, with: response) }
        }
    }

    private func respond(to request: HTTPRequest, with response: HTTPResponse) {
        inFlight = false
        inFlightBodyBytes = 0
        guard channel.isOpen else { return }
        if unauthenticatedAddress != nil && server.configuration.authenticates(request, response) {
            releaseUnauthenticated()
        }
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
            releaseBodyBytes()
            releaseUnauthenticated()
            updateReadHold()
            channel.closeAfterFlush(linger: parser.bufferedByteCount > 0)
            return
        }
        if parser.hasPartialRequest { requestStart = lastActivity }
        armTimer()
        processBuffered()
    }

    /// Answers an unparseable, oversized, over-budget or timed-out request and closes (RFC 9112 §9.6).
    private func reject(_ status: Int, _ detail: String) {
        Log.debug(.core, "HTTP connection \(id): \(status) \(detail)")
        let response = server.configuration.errorResponse?(status, detail)
            ?? HTTPResponse.text("\(HTTPStatus.reason(status))\n", status: status)
        refuse(response)
    }

    /// Sends `response` with `Connection: close` and closes without reading the rest of the request.
    private func refuse(_ response: HTTPResponse) {
        closing = true
        releaseBodyBytes()
        releaseUnauthenticated()  // a closing connection no longer holds its address's slot
        var response = response
        response.headers.set("Connection", "close")
        responseBuffer.removeAll(keepingCapacity: true)
        response.serialize(into: &responseBuffer)
        channel.write(responseBuffer)
        channel.closeAfterFlush(linger: true)
    }

    // MARK: Budgets

    /// Keeps this connection's share of the server's body budget equal to the body bytes it holds;
    /// false (and the request answered 503) when the budget cannot cover them.
    private func accountBodyBytes() -> Bool {
        let pending = parser.isReadingBody ? parser.pendingBodyByteCount + parser.bufferedByteCount : 0
        let held = inFlightBodyBytes + pending
        let delta = held - reservedBodyBytes
        guard delta != 0 else { return true }
        guard server.reserveBodyBytes(delta) else {
            reject(503, "request bodies over the server's buffer budget")
            return false
        }
        reservedBodyBytes = held
        return true
    }

    private func releaseBodyBytes() {
        if reservedBodyBytes != 0 { _ = server.reserveBodyBytes(-reservedBodyBytes) }
        reservedBodyBytes = 0
    }

    private func releaseUnauthenticated() {
        guard let address = unauthenticatedAddress else { return }
        unauthenticatedAddress = nil
        server.releaseUnauthenticated(address)
    }

    // MARK: WebSocket upgrade (RFC 6455 §4.2.2)

    private func upgrade(_ request: HTTPRequest, _ route: HTTPServer.WebSocketRoute, subprotocol: String?) {
        let key: String
        do {
            key = try WebSocketHandshake.validateRequest(method: request.method, headers: request.headers.fields)
        } catch .unsupportedVersion {
            return refuse(HTTPResponse(status: 426, headers: ["Sec-WebSocket-Version": "13"]))
        } catch {
            return reject(400, "bad WebSocket handshake: \(error)")
        }
        if let subprotocol, !WebSocketHandshake.offers(subprotocol: subprotocol, headers: request.headers.fields) {
            return reject(400, "this WebSocket needs the \(subprotocol) subprotocol (Sec-WebSocket-Protocol)")
        }
        let fields = WebSocketHandshake.responseHeaders(key: key, subprotocol: subprotocol, sha1: { Digest.sha1($0) })
        channel.write(HTTPResponse(status: 101, headers: HTTPHeaders(fields.map { ($0.name, $0.value) })).serialized)
        loop.cancelTimer(timer)
        timer = nil
        releaseBodyBytes()
        updateReadHold()
        channel.setOutputLimits(server.configuration.webSocketOutput)
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
        if let address = unauthenticatedAddress {
            // The socket counts against its address until its own protocol authenticates it.
            unauthenticatedAddress = nil
            socket.connection.onAuthenticatedOrClosed = { server.releaseUnauthenticated(address) }
        }
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

    private func rearmTimer() {
        loop.cancelTimer(timer)
        timer = nil
        armTimer()
    }

    /// The earliest of: idle since the last byte; the head (while it is being read) and the whole
    /// request (head and body) since the request's first byte.
    private var deadline: UInt64 {
        let configuration = server.configuration
        var deadline = lastActivity + configuration.idleTimeout.nanoseconds
        if let start = requestStart {
            deadline = min(deadline, start + configuration.requestTimeout.nanoseconds)
            if !parser.isReadingBody { deadline = min(deadline, start + configuration.headerTimeout.nanoseconds) }
        }
        return deadline
    }

    private func armTimer() {
        guard timer == nil, webSocket == nil, !closing else { return }
        let now = monotonicNanos()
        let deadline = deadline
        let delay = Duration.nanoseconds(Int64(deadline > now ? deadline - now : 0))
        timer = loop.scheduleTimer(after: delay) { [weak self] in self?.timerFired() }
    }

    private func timerFired() {
        timer = nil
        guard !inFlight, !admitting, !closing, webSocket == nil, channel.isOpen else { return }
        let now = monotonicNanos()
        let configuration = server.configuration
        if let start = requestStart {
            if now >= start + configuration.requestTimeout.nanoseconds { return reject(408, "request timeout") }
            if !parser.isReadingBody && now >= start + configuration.headerTimeout.nanoseconds {
                return reject(408, "header timeout")
            }
        }
        if now >= lastActivity + configuration.idleTimeout.nanoseconds {
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
        } else if !inFlight && !admitting && !parser.hasPartialRequest {
            channel.close()
        }
    }

    func forceClose() { channel.close() }
}
