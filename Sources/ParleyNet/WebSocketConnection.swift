import ParleyCore
import Synchronization
import WebSocketWire

/// The loop side of a WebSocket: frames in and out of a channel, auto-pong, and the close
/// handshake (RFC 6455 §5.5, §7). `WebSocket` is the thread-safe face of it.
///
/// An idle connection holds no buffer: the reader releases its storage once a read ends on a
/// frame boundary, and frames are written straight to the channel.
///
/// Back-pressure: frames are taken out of the reader only while the consumer has not paused
/// delivery (`setDeliveryPaused`) and the channel's output is not full (a peer sending pings but
/// not reading the pongs gets nothing more done); the rest waits in the reader, and reading from
/// the socket stops meanwhile.
///
/// `@unchecked Sendable`: loop-confined except `closeStatus`, which is behind a mutex.
final class WebSocketConnection: ChannelDelegate, @unchecked Sendable {
    enum CloseState { case open, closeSent, closed }
    /// Where received data messages go.
    enum Delivery {
        case none
        case stream(AsyncStream<WebSocketMessage>.Continuation)
        case delegate(any WebSocketDelegate)
    }

    let channel: TCPChannel
    let role: WebSocketFrameParser.Role
    let closeStatus = Mutex<(code: WebSocketCloseCode, reason: String)?>(nil)
    /// Whether the peer started the close handshake with 1000 (normal closure), before we closed.
    let peerFinished = Atomic<Bool>(false)
    private var reader: WebSocketReader
    private var delivery: Delivery
    private(set) var closeState = CloseState.open
    private var peerClose: (code: WebSocketCloseCode, reason: String)?
    private var pingWaiters: [(payload: [UInt8], continuation: CheckedContinuation<Void, any Error>)] = []
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []
    private var closeTimer: TimerQueue.ID?
    /// Called once on the loop when the connection is gone (the server's connection tracking).
    var onClosed: (() -> Void)?
    /// Called once, on the loop, when the socket's protocol authenticated it or it closed first
    /// (the server's per-address count of unauthenticated connections).
    var onAuthenticatedOrClosed: (() -> Void)?
    private var deliveryPaused = false

    init(channel: TCPChannel, role: WebSocketFrameParser.Role, maxMessageBytes: Int,
         delivery: Delivery) {
        self.channel = channel
        self.role = role
        self.delivery = delivery
        reader = WebSocketReader(role: role, maxMessageBytes: maxMessageBytes)
    }

    /// Takes over the channel; `initialBytes` are frames that arrived with the handshake. A
    /// `delegate` replaces the stream the socket was made with.
    func attach(initialBytes: [UInt8], delegate: (any WebSocketDelegate)? = nil) {
        if let delegate { delivery = .delegate(delegate) }
        channel.delegate = self
        if !initialBytes.isEmpty { process(initialBytes[...]) }
    }

    // MARK: Sending (loop thread)

    /// Sends a message, split into frames of at most `fragmentSize` payload bytes if given (§5.4).
    func send(_ message: WebSocketMessage, fragmentSize: Int?) throws(NetError) {
        guard closeState == .open else { throw .connectionClosed }
        let (opcode, payload): (WebSocketOpcode, [UInt8]) = switch message {
        case .text(let text): (.text, Array(text.utf8))
        case .binary(let bytes): (.binary, bytes)
        }
        let size = max(1, fragmentSize ?? payload.count)
        guard payload.count > size else { return sendFrame(WebSocketFrame(opcode: opcode, payload: payload)) }
        var offset = 0
        while offset < payload.count {
            let end = min(offset + size, payload.count)
            sendFrame(WebSocketFrame(fin: end == payload.count, opcode: offset == 0 ? opcode : .continuation,
                                     payload: Array(payload[offset..<end])))
            offset = end
        }
    }

    /// Sends a ping; `continuation` resumes when the matching pong arrives.
    func ping(_ payload: [UInt8], continuation: CheckedContinuation<Void, any Error>) {
        guard closeState == .open, payload.count <= 125 else {
            return continuation.resume(throwing: NetError.connectionClosed)
        }
        pingWaiters.append((payload, continuation))
        sendFrame(WebSocketFrame(opcode: .ping, payload: payload))
    }

    /// Starts the close handshake (§7.1.2); `continuation` resumes once the TCP connection is closed.
    func close(code: WebSocketCloseCode, reason: String, continuation: CheckedContinuation<Void, Never>?) {
        if let continuation {
            if closeState == .closed { return continuation.resume() }
            closeWaiters.append(continuation)
        }
        guard closeState == .open else { return }
        sendClose(code: code, reason: reason)
        armCloseTimer(.seconds(5))
    }

    private func sendFrame(_ frame: WebSocketFrame) {
        var frame = frame
        if role == .client { frame.maskingKey = UInt32.random(in: .min ... .max) }  // §5.3: unpredictable
        channel.write(frame.serialized)
    }

    private func sendClose(code: WebSocketCloseCode?, reason: String) {
        sendFrame(.close(code: code, reason: reason))
        closeState = .closeSent
    }

    private func armCloseTimer(_ delay: Duration) {
        loopCancelCloseTimer()
        closeTimer = channel.loop.scheduleTimer(after: delay) { [weak self] in self?.channel.close() }
    }

    private func loopCancelCloseTimer() {
        channel.loop.cancelTimer(closeTimer)
        closeTimer = nil
    }

    /// The socket's protocol authenticated the peer.
    func markAuthenticated() {
        let release = onAuthenticatedOrClosed
        onAuthenticatedOrClosed = nil
        release?()
    }

    /// Holds received messages back (true) or delivers them again (false), with what waited.
    func setDeliveryPaused(_ paused: Bool) {
        guard paused != deliveryPaused, closeState != .closed else { return }
        deliveryPaused = paused
        if paused {
            channel.pauseReading()
        } else {
            channel.resumeReading()
            process([])
        }
    }

    // MARK: Receiving

    func channelActive(_ channel: TCPChannel) {}

    func channelRead(_ channel: TCPChannel, _ bytes: ArraySlice<UInt8>) { process(bytes) }

    func channelDrained(_ channel: TCPChannel) { process([]) }

    private func process(_ bytes: ArraySlice<UInt8>) {
        if !bytes.isEmpty { reader.append(bytes) }
        do {
            while closeState != .closed, !deliveryPaused, !channel.isOutputFull, let event = try reader.next() {
                handle(event)
            }
        } catch {
            // §7.1.7: fail the connection with the matching close code.
            Log.debug(.core, "websocket protocol error: \(error)")
            if closeState == .open { sendClose(code: error.closeCode, reason: "") }
            recordPeerClose(error.closeCode == .messageTooBig ? .messageTooBig : .protocolError, "", local: true)
            channel.closeAfterFlush(linger: true)
        }
    }

    private func handle(_ event: WebSocketEvent) {
        switch event {
        case .message(let message):
            guard closeState == .open else { return }
            switch delivery {
            case .stream(let messages): messages.yield(message)
            case .delegate(let delegate): delegate.webSocketReceived(message)
            case .none: break
            }
        case .ping(let payload):
            if closeState == .open { sendFrame(WebSocketFrame(opcode: .pong, payload: payload)) }
        case .pong(let payload):
            if let index = pingWaiters.firstIndex(where: { $0.payload == payload }) {
                pingWaiters.remove(at: index).continuation.resume()
            }
        case .close(let code, let reason):
            recordPeerClose(code ?? .noStatusReceived, reason, local: false)
            if closeState == .open && code == .normalClosure { peerFinished.store(true, ordering: .relaxed) }
            if closeState == .open {
                // §5.5.1: echo the status code; an empty close is answered with an empty close.
                sendClose(code: code, reason: "")
            }
            if role == .server {
                channel.closeAfterFlush()  // §7.1.1: the server closes TCP first
            } else {
                armCloseTimer(.seconds(2))  // wait for the server's FIN
            }
        }
    }

    private func recordPeerClose(_ code: WebSocketCloseCode, _ reason: String, local: Bool) {
        guard peerClose == nil else { return }
        peerClose = (code, reason)
        closeStatus.withLock { $0 = (code, reason) }
    }

    func channelReadEOF(_ channel: TCPChannel) { channel.close() }

    func channelClosed(_ channel: TCPChannel, error: (any Error)?) {
        closeState = .closed
        markAuthenticated()  // no longer counted either way
        loopCancelCloseTimer()
        recordPeerClose(.abnormalClosure, "", local: true)
        let delivery = self.delivery
        self.delivery = .none  // the delegate holds the socket: break the cycle
        switch delivery {
        case .stream(let messages): messages.finish()
        case .delegate(let delegate): delegate.webSocketClosed()
        case .none: break
        }
        for waiter in pingWaiters { waiter.continuation.resume(throwing: NetError.connectionClosed) }
        pingWaiters.removeAll()
        for waiter in closeWaiters { waiter.resume() }
        closeWaiters.removeAll()
        onClosed?()
        onClosed = nil
    }
}
