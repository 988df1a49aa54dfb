import Foundation
import ParleyCore
import ParleyNet
import Signaling
import WebSocketWire
import Synchronization

/// A signaling client for tests and benchmarks: connects to `/v1/signaling`, says hello, and reads
/// messages with timeouts. Not the SDK: it sends exactly what the test tells it to.
public final class SignalingTestClient: Sendable {
    public let webSocket: WebSocket
    private let inbox: AsyncStream<SignalingEnvelope>
    private let reader: Task<Void, Never>
    /// Messages `expect` skipped, kept for later `expect`s in arrival order.
    private let skipped = Mutex<[SignalingEnvelope]>([])
    /// The `welcome` (or `resumed`) the server answered the hello with.
    public let greeting: SignalingMessage

    public struct Timeout: Error, CustomStringConvertible {
        public let description: String
    }

    /// Connects and says hello with `token` (resuming `resume` if given); throws the server's
    /// error when the hello is refused.
    public init(baseURL: String, token: String, resume: String? = nil) async throws {
        let url = baseURL.replacingOccurrences(of: "http://", with: "ws://") + "/v1/signaling"
        webSocket = try await WebSocket.connect(url: url)
        let (stream, continuation) = AsyncStream<SignalingEnvelope>.makeStream()
        inbox = stream
        let socket = webSocket
        reader = Task {
            for await message in socket.messages {
                guard case .text(let text) = message, let envelope = try? SignalingCodec.decode(text) else { continue }
                continuation.yield(envelope)
            }
            continuation.finish()
        }
        try await webSocket.send(text: SignalingCodec.encode(SignalingEnvelope(.hello(Hello(token: token, resume: resume)))))
        var iterator = inbox.makeAsyncIterator()
        guard let first = await iterator.next() else { throw Timeout(description: "closed before welcome") }
        if case .error(let body) = first.message { throw ParleyError(ParleyError.Code(rawValue: body.code), reason: body.message) }
        greeting = first.message
    }

    deinit { reader.cancel() }

    /// The session id from the greeting.
    public var sessionID: String? {
        switch greeting {
        case .welcome(let w): w.session
        case .resumed(let r): r.session
        default: nil
        }
    }

    public func send(_ message: SignalingMessage, id: String? = nil) async throws {
        try await webSocket.send(text: SignalingCodec.encode(SignalingEnvelope(id: id, message: message)))
    }

    /// The next message, or nil when the socket closed.
    public func next(timeout: Duration = .seconds(10)) async throws -> SignalingEnvelope? {
        let inbox = self.inbox
        return try await withThrowingTaskGroup(of: SignalingEnvelope?.self) { group in
            group.addTask {
                var iterator = inbox.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Timeout(description: "no signaling message within \(timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// The first message (earlier skipped ones first) that `match` accepts, returning its value;
    /// messages it does not accept are kept for later calls. Throws on timeout.
    public func expect<T>(_ what: String, timeout: Duration = .seconds(10),
                          _ match: (SignalingMessage) -> T?) async throws -> T {
        let earlier = skipped.withLock { $0 }
        for (index, envelope) in earlier.enumerated() {
            if let value = match(envelope.message) {
                skipped.withLock { _ = $0.remove(at: index) }
                return value
            }
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let envelope = try await next(timeout: deadline - ContinuousClock.now) else {
                throw Timeout(description: "socket closed while waiting for \(what)")
            }
            if let value = match(envelope.message) { return value }
            skipped.withLock { $0.append(envelope) }
        }
        throw Timeout(description: "no \(what) within \(timeout)")
    }

    /// Closes with 1000: the client is done, and the server ends its session at once.
    public func close() async {
        await webSocket.close()
    }

    /// Drops the connection as a network failure would: the session waits for a resume.
    public func drop() async {
        await webSocket.abort()
    }
}
