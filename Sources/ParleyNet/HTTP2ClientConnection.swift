import Glibc
import ParleyCrypto

/// One HTTP/2 connection on an event loop: a `TCPChannel` (TLS with ALPN `h2`, or cleartext with
/// prior knowledge, RFC 9113 §3.3) driving an `HTTP2ClientCore`. Request outcomes go to `onEvent`.
///
/// Loop-confined: other threads reach it only through `loop.execute`, carrying a `LoopBound`.
final class HTTP2ClientConnection: ChannelDelegate {
    let loop: EventLoop
    let endpoint: Endpoint
    private let core: HTTP2ClientCore
    private var channel: TCPChannel?
    private var tls: TLSSession?
    private var active = false
    /// Whether the connection ever became usable (then queued requests may move elsewhere).
    private var wasActive = false
    private var connectTimer: TimerQueue.ID?
    /// Receives request outcomes and, last, `.close` once the connection is unusable.
    var onEvent: ((HTTP2ClientConnection, HTTP2ClientCore.Event) -> Void)?

    init(loop: EventLoop, endpoint: Endpoint, options: HTTP2ClientCore.Options) {
        self.loop = loop
        self.endpoint = endpoint
        core = HTTP2ClientCore(options: options)
    }

    /// Whether new requests may be routed here.
    var acceptsRequests: Bool { core.acceptsRequests }
    var load: Int { core.load }

    /// Loop thread: wraps a connecting socket; fails everything if not connected within `timeout`.
    func open(fd: Int32, tlsContext: TLSContext?, timeout: Duration) {
        if endpoint.useTLS {
            guard let tlsContext else {
                Glibc.close(fd)
                return transportFailed(NetError.tls("no TLS context"))
            }
            do {
                tls = try TLSSession(context: tlsContext, serverName: endpoint.host)
            } catch {
                Glibc.close(fd)
                return transportFailed(NetError.tls(error.message))
            }
        }
        let channel = TCPChannel(loop: loop, fd: fd, tls: tls, connecting: true)
        channel.delegate = self
        self.channel = channel
        connectTimer = loop.scheduleTimer(after: timeout) { [weak self] in
            guard let self, !self.active else { return }
            self.transportFailed(NetError.timeout)
            self.channel?.close()
        }
        channel.start()
    }

    /// Loop thread: the socket could not be opened.
    func transportFailed(_ error: any Error) {
        deliver(core.connectionLost(error, retryQueued: false))
    }

    func submit(_ id: UInt64, _ request: HTTP2Request) {
        deliver(core.submit(id, request))
    }

    func cancel(_ id: UInt64) {
        deliver(core.cancel(id))
    }

    /// Sends GOAWAY, fails what is left and closes.
    func shutdown() {
        deliver(core.shutdown())
    }

    // MARK: ChannelDelegate

    func channelActive(_ channel: TCPChannel) {
        loop.cancelTimer(connectTimer)
        connectTimer = nil
        if endpoint.useTLS {
            let selected = tls?.negotiatedProtocol
            guard selected == "h2" else {
                deliver(core.connectionLost(HTTP2ClientError.alpnNotNegotiated(selected), retryQueued: false))
                return
            }
        }
        active = true
        wasActive = true
        flush()
    }

    func channelRead(_ channel: TCPChannel, _ bytes: ArraySlice<UInt8>) {
        deliver(core.receive(bytes))
    }

    func channelReadEOF(_ channel: TCPChannel) {
        deliver(core.connectionLost(NetError.connectionClosed, retryQueued: wasActive))
    }

    func channelClosed(_ channel: TCPChannel, error: (any Error)?) {
        loop.cancelTimer(connectTimer)
        connectTimer = nil
        active = false
        deliver(core.connectionLost(error ?? NetError.connectionClosed, retryQueued: wasActive))
        self.channel = nil
    }

    // MARK: Output

    private func flush() {
        guard active, let channel else { return }
        let bytes = core.takeOutput()
        if !bytes.isEmpty { channel.write(bytes) }
    }

    private func deliver(_ events: [HTTP2ClientCore.Event]) {
        flush()
        var closing = false
        for event in events {
            if case .close = event { closing = true }
            onEvent?(self, event)
        }
        if closing, let channel, channel.isOpen {
            active = false
            channel.closeAfterFlush()
        }
    }
}
