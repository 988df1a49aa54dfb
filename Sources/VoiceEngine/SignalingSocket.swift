import ParleyCore
import ParleyNet
import Signaling
import Synchronization
import WebSocketWire

/// One signaling connection seen from the server. Outgoing messages are queued on the
/// connection's event loop in order, so callers (the `VoiceService` actor) never wait on the
/// network. Incoming messages arrive on the loop (`WebSocketDelegate`) and are handled in order
/// by a task that exists only while some wait, so an idle connection holds no task or stream.
///
/// The inbox is bounded: once `inboxHighWater` messages wait, the socket stops reading (the
/// client's further messages wait in its own send buffer) until the task has worked it down to
/// `inboxLowWater`; a message that finds the inbox full anyway closes the socket with 1008.
final class SignalingSocket: WebSocketDelegate, Sendable {
    /// Where the connection is in the protocol.
    enum Phase: Sendable {
        /// Waiting for `hello`.
        case hello
        /// Past `hello`: messages go to the session.
        case attached(sessionID: String)
        /// The hello was refused and the socket is closing.
        case refused
    }

    static let inboxCapacity = 64
    static let inboxHighWater = 16
    static let inboxLowWater = 4

    private struct State {
        var phase = Phase.hello
        /// Received, not yet handled (no storage while idle).
        var inbox = RingBuffer<WebSocketMessage>(capacity: SignalingSocket.inboxCapacity)
        /// Reading is paused because the inbox reached its high-water mark.
        var readingPaused = false
        var draining = false
        var closed = false
        var closeHandled = false
        var lastSeen = SystemClock.now
        var idleLimit: Duration

        /// Whether the caller must start the drain task.
        mutating func beginDraining() -> Bool {
            if draining { return false }
            draining = true
            return true
        }
    }

    private enum Event {
        case message(WebSocketMessage)
        case closed
    }

    let webSocket: WebSocket
    private let endpoint: SignalingEndpoint
    private let state: Mutex<State>

    init(_ webSocket: WebSocket, endpoint: SignalingEndpoint, idleLimit: Duration) {
        self.webSocket = webSocket
        self.endpoint = endpoint
        state = Mutex(State(idleLimit: idleLimit))
    }

    var phase: Phase { state.withLock { $0.phase } }

    // MARK: Sending

    /// Queues `message` (with `ref` when it answers a request).
    func send(_ message: SignalingMessage, ref: String? = nil) {
        webSocket.enqueue(text: SignalingCodec.encode(SignalingEnvelope(ref: ref, message: message)))
    }

    /// Queues an error reply.
    func sendError(_ error: ParleyError, ref: String?) {
        send(.error(SignalingErrorBody(code: error.code.rawValue, message: error.failureReason ?? error.code.text)), ref: ref)
    }

    /// Starts the close handshake with `code` after what is queued (the loop runs the close after the sends).
    func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        webSocket.startClose(code: code, reason: reason)
    }

    // MARK: Protocol state (from the drain task)

    /// The hello was accepted: later messages go to `sessionID`; silence is allowed for `idleLimit`.
    func attached(sessionID: String, idleLimit: Duration) {
        state.withLock {
            $0.phase = .attached(sessionID: sessionID)
            $0.idleLimit = idleLimit
            $0.lastSeen = SystemClock.now
        }
    }

    /// Answers the hello with `error` and closes with `code`; nothing more is read.
    func refuse(_ error: ParleyError, ref: String?, code: UInt16, reason: String) {
        state.withLock { $0.phase = .refused }
        sendError(error, ref: ref)
        close(code: WebSocketCloseCode(code), reason: reason)
    }

    /// Whether nothing arrived for longer than the current limit.
    func isSilent(at now: MonotonicInstant) -> Bool {
        state.withLock { $0.lastSeen.duration(to: now) > $0.idleLimit }
    }

    // MARK: Receiving (on the event loop)

    func webSocketReceived(_ message: WebSocketMessage) {
        let (accepted, pause, start) = state.withLock { s in
            s.lastSeen = SystemClock.now
            guard s.inbox.append(message) else { return (false, false, false) }
            let pause = !s.readingPaused && s.inbox.count >= Self.inboxHighWater
            if pause { s.readingPaused = true }
            return (true, pause, s.beginDraining())
        }
        guard accepted else {
            Log.info(.signaling, "signaling inbox full: closing the connection")
            return close(code: .policyViolation, reason: "too many messages waiting")
        }
        if pause { webSocket.pauseReading() }  // on the loop: before the next message
        if start { Task { await drain() } }
    }

    func webSocketClosed() {
        let start = state.withLock { s in
            s.closed = true
            return s.beginDraining()
        }
        if start { Task { await drain() } }
    }

    /// Handles waiting messages one at a time, then the close; ends when nothing is left.
    private func drain() async {
        while let event = nextEvent() {
            switch event {
            case .message(let message): await endpoint.handle(message, from: self)
            case .closed: await endpoint.closed(self)
            }
        }
    }

    private func nextEvent() -> Event? {
        let (event, resume) = state.withLock { s -> (Event?, Bool) in
            if let message = s.inbox.popFirst() {
                let resume = s.readingPaused && s.inbox.count <= Self.inboxLowWater
                if resume { s.readingPaused = false }
                return (.message(message), resume)
            }
            return (finishDraining(&s), false)
        }
        if resume { webSocket.resumeReading() }
        return event
    }

    /// The inbox is empty: the close, if it came and is not handled yet, else the task ends.
    private func finishDraining(_ s: inout State) -> Event? {
        if s.closed && !s.closeHandled {
            s.closeHandled = true
            return .closed
        }
        s.draining = false
        return nil
    }
}

/// Closes signaling sockets that stay silent past their limit (no hello within 10 s, nothing for
/// three heartbeats). One task sweeps every watched socket each second, instead of a timer or
/// task per connection.
final class IdleSweeper: Sendable {
    static let shared = IdleSweeper()

    private struct State {
        var sockets: [ObjectIdentifier: SignalingSocket] = [:]
        var sweeping = false
    }

    private let state = Mutex(State())

    func watch(_ socket: SignalingSocket) {
        let start = state.withLock { s -> Bool in
            s.sockets[ObjectIdentifier(socket)] = socket
            defer { s.sweeping = true }
            return !s.sweeping
        }
        if start { Task.detached { [self] in await sweep() } }
    }

    func remove(_ socket: SignalingSocket) {
        state.withLock { _ = $0.sockets.removeValue(forKey: ObjectIdentifier(socket)) }
    }

    private func sweep() async {
        while true {
            try? await Task.sleep(for: .seconds(1))
            let now = SystemClock.now
            let silent = state.withLock { s -> [SignalingSocket] in
                let gone = s.sockets.values.filter { $0.isSilent(at: now) }
                for socket in gone { s.sockets[ObjectIdentifier(socket)] = nil }
                return gone
            }
            for socket in silent {
                socket.close(code: WebSocketCloseCode(SignalingCloseCode.timedOut), reason: "timed out")
            }
        }
    }
}
