import HTTPWire
import Synchronization

/// One client-side HTTP/1.1 connection running one request at a time.
///
/// `@unchecked Sendable`: loop-confined except `closed`, an atomic the pool reads.
final class HTTPClientConnection: ChannelDelegate, @unchecked Sendable {
    /// Thrown when a reused connection turned out to be closed before any response byte arrived;
    /// the client retries such requests once on a fresh connection.
    struct StaleConnection: Error {}

    let loop: EventLoop
    let endpoint: Endpoint
    var channel: TCPChannel?
    let closed = Atomic<Bool>(false)
    private var parser: HTTPResponseParser
    private var pending: (method: String, continuation: CheckedContinuation<HTTPResponse, any Error>)?
    private var queued: [UInt8]?
    private var timer: TimerQueue.ID?
    private var receivedAny = false
    private var reused = false
    private var requestKeepAlive = true
    /// Called on the loop when a response completed and the connection may be reused.
    var onIdle: ((HTTPClientConnection) -> Void)?

    init(loop: EventLoop, endpoint: Endpoint, limits: HTTPLimits) {
        self.loop = loop
        self.endpoint = endpoint
        parser = HTTPResponseParser(limits: limits)
    }

    /// Loop thread: sends `request` and resumes `continuation` with the response or an error.
    func execute(_ request: HTTPRequest, timeout: Duration, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        guard let channel, channel.isOpen, pending == nil else {
            return continuation.resume(throwing: reused ? StaleConnection() : NetError.connectionClosed)
        }
        pending = (request.method, continuation)
        receivedAny = false
        requestKeepAlive = request.keepAlive
        timer = loop.scheduleTimer(after: timeout) { [weak self] in self?.fail(NetError.timeout) }
        if channel.state == .active {
            channel.write(request.serialized)
        } else {
            queued = request.serialized
        }
    }

    func markReused() { reused = true }

    func channelActive(_ channel: TCPChannel) {
        if let queued {
            self.queued = nil
            channel.write(queued)
        }
    }

    func channelRead(_ channel: TCPChannel, _ bytes: ArraySlice<UInt8>) {
        receivedAny = true
        parser.append(bytes)
        guard let (method, _) = pending else { return channel.close() }  // unsolicited bytes
        do {
            if let response = try parser.next(requestMethod: method) { complete(response) }
        } catch {
            fail(NetError.protocolViolation("\(error)"))
        }
    }

    func channelReadEOF(_ channel: TCPChannel) {
        if pending != nil {
            do {
                if let response = try parser.finish() {
                    requestKeepAlive = false
                    return complete(response)
                }
            } catch {
                return fail(NetError.protocolViolation("\(error)"))
            }
        }
        channel.close()
    }

    func channelClosed(_ channel: TCPChannel, error: (any Error)?) {
        closed.store(true, ordering: .releasing)
        let staleReuse = reused && !receivedAny
        if let error, !staleReuse {
            fail(error)
        } else {
            fail(staleReuse ? StaleConnection() : NetError.connectionClosed)
        }
    }

    private func complete(_ response: HTTPResponse) {
        guard let (_, continuation) = pending else { return }
        pending = nil
        loop.cancelTimer(timer)
        timer = nil
        continuation.resume(returning: response)
        let keepAlive = requestKeepAlive && response.version == .http1_1 && !response.headers.tokens("Connection").contains("close")
        if keepAlive && !parser.hasPartialResponse, let onIdle {
            onIdle(self)
        } else {
            channel?.close()
        }
    }

    private func fail(_ error: any Error) {
        loop.cancelTimer(timer)
        timer = nil
        if let (_, continuation) = pending {
            pending = nil
            continuation.resume(throwing: error)
        }
        channel?.close()
    }
}
