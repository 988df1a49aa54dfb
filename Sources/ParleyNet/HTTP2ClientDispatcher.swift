import ParleyCrypto

/// Routes an `HTTP2Client`'s requests to its current connection, opening a new one when there is
/// none or the current one stopped accepting (GOAWAY, failure). Owns the continuations and timers.
///
/// Loop-confined: `HTTP2Client` holds it in a `LoopBound` and reaches it through `loop.execute`.
final class HTTP2ClientDispatcher {
    private struct Pending {
        let request: HTTP2Request
        let continuation: CheckedContinuation<HTTP2Response, any Error>
        var timer: TimerQueue.ID?
        var attempts = 0
        /// Why the last attempt did not go through, reported once attempts run out.
        var lastRetryReason: (any Error)?
        weak var connection: HTTP2ClientConnection?
    }

    /// Sending a request at most this many times (retries are for unprocessed requests only).
    static let maxAttempts = 3

    let loop: EventLoop
    let endpoint: Endpoint
    private let tlsContext: TLSContext?
    private let options: HTTP2ClientCore.Options
    private let connectTimeout: Duration
    private var connection: HTTP2ClientConnection?
    private var pending: [UInt64: Pending] = [:]
    private var nextID: UInt64 = 1
    private var isShutDown = false

    init(loop: EventLoop, endpoint: Endpoint, tlsContext: TLSContext?, options: HTTP2ClientCore.Options,
         connectTimeout: Duration) {
        self.loop = loop
        self.endpoint = endpoint
        self.tlsContext = tlsContext
        self.options = options
        self.connectTimeout = connectTimeout
    }

    /// Loop thread.
    func submit(_ request: HTTP2Request, timeout: Duration, continuation: CheckedContinuation<HTTP2Response, any Error>) {
        guard !isShutDown else { return continuation.resume(throwing: NetError.connectionClosed) }
        let id = nextID
        nextID += 1
        var entry = Pending(request: request, continuation: continuation)
        entry.timer = loop.scheduleTimer(after: timeout) { [weak self] in self?.timedOut(id) }
        pending[id] = entry
        route(id)
    }

    /// Loop thread: sends GOAWAY on the connection and fails everything.
    func shutdown() {
        isShutDown = true
        connection?.shutdown()
        connection = nil
        for id in Array(pending.keys) { resume(id, .failure(NetError.connectionClosed)) }
    }

    private func route(_ id: UInt64) {
        guard var entry = pending[id] else { return }
        entry.attempts += 1
        guard entry.attempts <= Self.maxAttempts, !isShutDown else {
            return resume(id, .failure(isShutDown ? NetError.connectionClosed
                                                  : entry.lastRetryReason ?? HTTP2ClientError.retriesExhausted))
        }
        let target = currentConnection()
        entry.connection = target
        pending[id] = entry
        target.submit(id, entry.request)
    }

    private func currentConnection() -> HTTP2ClientConnection {
        if let connection, connection.acceptsRequests { return connection }
        let fresh = HTTP2ClientConnection(loop: loop, endpoint: endpoint, options: options)
        fresh.onEvent = { [weak self] connection, event in self?.handle(event, from: connection) }
        connection = fresh
        let endpoint = endpoint, loop = loop, tlsContext = tlsContext, timeout = connectTimeout
        // Resolution may block on DNS, so it runs off the loop (as HTTPClient does).
        let bound = LoopBound(fresh, loop: loop)
        Task.detached {
            do {
                let fd = try ClientChannel.connect(endpoint)
                loop.execute { bound.value.open(fd: fd, tlsContext: tlsContext, timeout: timeout) }
            } catch {
                loop.execute { bound.value.transportFailed(error) }
            }
        }
        return fresh
    }

    private func handle(_ event: HTTP2ClientCore.Event, from source: HTTP2ClientConnection) {
        switch event {
        case .response(let id, let response):
            resume(id, .success(response))
        case .failure(let id, let error):
            resume(id, .failure(error))
        case .retry(let id, let reason):
            guard pending[id] != nil else { return }
            pending[id]?.lastRetryReason = reason
            route(id)
        case .close:
            if connection === source { connection = nil }
        }
    }

    private func timedOut(_ id: UInt64) {
        guard let entry = pending[id] else { return }
        pending[id]?.timer = nil
        entry.connection?.cancel(id)
        resume(id, .failure(NetError.timeout))
    }

    private func resume(_ id: UInt64, _ result: Result<HTTP2Response, any Error>) {
        guard let entry = pending.removeValue(forKey: id) else { return }
        loop.cancelTimer(entry.timer)
        entry.continuation.resume(with: result)
    }
}
