import Foundation
import ParleyCore
import ParleyNet
import Signaling
import Synchronization

/// One authenticated signaling connection to `/v1/signaling` (docs/signaling.md): says `hello`,
/// keeps the heartbeat, answers `ping`, and routes what arrives to subscribers by call — by call
/// SID, by the caller's call id until the SID is known, by the `ref` of an error — and everything
/// else to `unrouted`. When the socket ends every subscription finishes.
final class SignalingChannel: Sendable {
    let welcome: Welcome
    /// Messages for no subscribed call (incoming invites, cancellations, `listening`).
    let unrouted: AsyncStream<SignalingEnvelope>
    private let webSocket: WebSocket
    private let routes = Mutex(Routes())
    private let unroutedSink: AsyncStream<SignalingEnvelope>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])

    private struct Routes {
        var byKey: [String: AsyncStream<SignalingMessage>.Continuation] = [:]
        var closed = false
    }

    /// Connects to `baseURL` and says hello with `token`; throws the server's refusal (its token
    /// error code) or 31005/53001 when the server cannot be reached.
    static func open(baseURL: String, token: String) async throws(ParleyError) -> SignalingChannel {
        let url = baseURL.replacingOccurrences(of: "http://", with: "ws://")
            .replacingOccurrences(of: "https://", with: "wss://") + "/v1/signaling"
        let webSocket: WebSocket
        do { webSocket = try await WebSocket.connect(url: url) } catch {
            throw ParleyError(.connection, reason: "cannot reach \(baseURL): \(error)")
        }
        do {
            try await webSocket.send(text: SignalingCodec.encode(SignalingEnvelope(.hello(Hello(token: token, client: "parley-swift/\(ParleyVersion.string)")))))
        } catch {
            throw ParleyError(.signalingConnectionDisconnected, reason: "hello not sent: \(error)")
        }
        guard let first = await webSocket.receive(), case .text(let text) = first,
              let envelope = try? SignalingCodec.decode(text) else {
            await webSocket.close()
            throw ParleyError(.signalingConnectionDisconnected, reason: "the server closed before welcome")
        }
        switch envelope.message {
        case .welcome(let welcome):
            return SignalingChannel(webSocket: webSocket, welcome: welcome)
        case .error(let body):
            await webSocket.close()
            throw ParleyError(ParleyError.Code(rawValue: body.code), reason: body.message)
        default:
            await webSocket.close()
            throw ParleyError(.malformedRequest, reason: "expected welcome, got \(envelope.message.type.rawValue)")
        }
    }

    private init(webSocket: WebSocket, welcome: Welcome) {
        self.webSocket = webSocket
        self.welcome = welcome
        (unrouted, unroutedSink) = AsyncStream.makeStream()
        let reader = Task { [weak self] in
            while let message = await webSocket.receive() {
                guard let self else { return }
                guard case .text(let text) = message else { continue }
                guard let envelope = try? SignalingCodec.decode(text) else {
                    Log.warning(.signaling, "undecodable signaling message dropped")
                    continue
                }
                self.dispatch(envelope)
            }
            self?.finishAll()
        }
        let heartbeat = Task { [weak self] in
            let interval = Duration.seconds(max(1, welcome.heartbeat))
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                self.send(.ping)
            }
        }
        tasks.withLock { $0 = [reader, heartbeat] }
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    /// Messages about one call: subscribe with the caller's call id before sending `invite`, or
    /// with the SID for an incoming call. A `callCreated` adds the SID as a second key.
    func subscribe(_ key: String) -> AsyncStream<SignalingMessage> {
        let (stream, sink) = AsyncStream<SignalingMessage>.makeStream()
        let accepted = routes.withLock { routes -> Bool in
            guard !routes.closed else { return false }
            routes.byKey[key] = sink
            return true
        }
        if !accepted { sink.finish() }
        return stream
    }

    /// Stops routing `keys`; their stream finishes.
    func unsubscribe(_ keys: [String]) {
        let sinks = routes.withLock { routes in keys.compactMap { routes.byKey.removeValue(forKey: $0) } }
        for sink in sinks { sink.finish() }
    }

    /// Sends in order (the socket's loop keeps the order); failures surface as the socket ending.
    func send(_ message: SignalingMessage, id: String? = nil) {
        Log.debug(.signaling, "→ \(message.type.rawValue)")
        webSocket.enqueue(text: SignalingCodec.encode(SignalingEnvelope(id: id, message: message)))
    }

    /// Closes the connection.
    func close() async {
        for task in tasks.withLock({ $0 }).dropFirst() { task.cancel() }  // the heartbeat; the reader ends with the socket
        await webSocket.close()
        finishAll()
    }

    private func dispatch(_ envelope: SignalingEnvelope) {
        Log.debug(.signaling, "← \(envelope.message.type.rawValue)")
        if case .ping = envelope.message {
            send(.pong)
            return
        }
        if case .pong = envelope.message { return }
        let key = Self.routingKey(envelope)
        let sink = key.flatMap { key in
            routes.withLock { routes in
                // The call's later messages carry its SID: route them to the caller's subscriber from
                // here on, before anything else is read.
                if case .callCreated(let created) = envelope.message { routes.byKey[created.callSid] = routes.byKey[key] }
                return routes.byKey[key]
            }
        }
        if let sink {
            sink.yield(envelope.message)
        } else {
            unroutedSink.yield(envelope)
        }
    }

    private static func routingKey(_ envelope: SignalingEnvelope) -> String? {
        switch envelope.message {
        case .callCreated(let created): created.callId
        case .ringing(let reference), .connected(let reference): reference.callSid ?? reference.callId
        case .answer(let answer): answer.callSid
        case .hangup(let hangup): hangup.callSid
        case .message(let message): message.callSid
        case .messageSent(let ack): ack.callSid
        case .messageFailed(let failure): failure.callSid
        case .error: envelope.ref
        default: nil  // incoming, cancelled, listening, resumed: the listener's
        }
    }

    private func finishAll() {
        let sinks = routes.withLock { routes -> [AsyncStream<SignalingMessage>.Continuation] in
            routes.closed = true
            defer { routes.byKey = [:] }
            return Array(routes.byKey.values)
        }
        for sink in sinks { sink.finish() }
        unroutedSink.finish()
    }
}
