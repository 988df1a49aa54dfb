import Foundation
import ParleyCore
import ParleyNet
import Signaling
import WebSocketWire
import Synchronization

/// What a subscriber (a call, a room) hears from its signaling connection.
package enum ChannelEvent: Sendable {
    case message(SignalingMessage)
    /// The socket dropped; the channel is resuming its session (docs/signaling.md, resume).
    case interrupted
    /// The session was resumed on a new socket; messages flow again.
    case resumed
}

/// Where a signaling message goes: the subscriber key it is for and, optionally, a second key
/// under which the same subscriber hears later messages (an outgoing call's SID, once
/// `callCreated` names it for the caller's call id).
package struct SignalingRoute: Sendable, Equatable {
    package var key: String
    package var alias: String?

    package init(key: String, alias: String? = nil) {
        self.key = key
        self.alias = alias
    }
}

/// How an SDK sorts what arrives on its signaling connection: the route of a message, or nil for
/// messages that belong to no subscriber (they go to `unrouted`). Each SDK brings its own.
package typealias SignalingRouter = @Sendable (SignalingEnvelope) -> SignalingRoute?

/// One authenticated signaling connection to `/v1/signaling` (docs/signaling.md), what every SDK
/// talks to the server over: says `hello`, keeps the heartbeat, answers `ping`, and hands what
/// arrives to subscribers by the key its `SignalingRouter` names — everything else to `unrouted`.
/// When the socket drops it resumes the session on a new one (hello with `resume`) for as long as
/// the server keeps it (the welcome's `resumeWindow`); subscribers hear `.interrupted` and
/// `.resumed`. Only when that fails, or on `close()`, do the streams finish.
package final class SignalingChannel: Sendable {
    package let welcome: Welcome
    /// Messages for no subscriber (for the voice SDK: incoming invites, cancellations, `listening`).
    package let unrouted: AsyncStream<SignalingEnvelope>
    private let baseURL: String
    private let token: String
    private let client: String
    private let router: SignalingRouter
    private let webSocket: Mutex<WebSocket>
    private let routes = Mutex(Routes())
    private let unroutedSink: AsyncStream<SignalingEnvelope>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])

    private struct Routes {
        var byKey: [String: AsyncStream<ChannelEvent>.Continuation] = [:]
        var closed = false
        var closing = false
    }

    /// Connects to `baseURL` and says hello with `token`, naming the SDK as `client` (`hello.client`,
    /// e.g. `parley-swift/0.6.0`); throws the server's refusal (its token error code) or
    /// 31005/53001 when the server cannot be reached.
    package static func open(baseURL: String, token: String, client: String, clock: any MonotonicClock = SystemClock(),
                             router: @escaping SignalingRouter) async throws(ParleyError) -> SignalingChannel {
        let (webSocket, greeting) = try await connect(baseURL: baseURL, token: token, client: client, resume: nil)
        guard case .welcome(let welcome) = greeting else {
            await webSocket.close()
            throw ParleyError(.malformedRequest, reason: "expected welcome, got \(greeting.type.rawValue)")
        }
        return SignalingChannel(webSocket: webSocket, welcome: welcome, baseURL: baseURL, token: token, client: client,
                                clock: clock, router: router)
    }

    /// A socket past hello: the server's `welcome` or `resumed`.
    private static func connect(baseURL: String, token: String, client: String,
                                resume: String?) async throws(ParleyError) -> (WebSocket, SignalingMessage) {
        // A resume attempt gives up sooner, so that one made while the network was still down
        // does not hold up the next for long once it is back.
        let timeout: Duration = resume == nil ? .seconds(10) : .seconds(4)
        let url = baseURL.replacingOccurrences(of: "http://", with: "ws://")
            .replacingOccurrences(of: "https://", with: "wss://") + "/v1/signaling"
        let webSocket: WebSocket
        do { webSocket = try await WebSocket.connect(url: url, timeout: timeout) } catch {
            throw ParleyError(.connection, reason: "cannot reach \(baseURL): \(error)")
        }
        let hello = Hello(token: token, resume: resume, client: client)
        do { try await webSocket.send(text: SignalingCodec.encode(SignalingEnvelope(.hello(hello)))) } catch {
            throw ParleyError(.signalingConnectionDisconnected, reason: "hello not sent: \(error)")
        }
        guard let first = await webSocket.receive(), case .text(let text) = first,
              let envelope = try? SignalingCodec.decode(text) else {
            await webSocket.close()
            throw ParleyError(.signalingConnectionDisconnected, reason: "the server closed before welcome")
        }
        if case .error(let body) = envelope.message {
            await webSocket.close()
            throw ParleyError(ParleyError.Code(rawValue: body.code), reason: body.message)
        }
        return (webSocket, envelope.message)
    }

    /// The time source of the heartbeat and the resume window.
    private let clock: any MonotonicClock

    private init(webSocket: WebSocket, welcome: Welcome, baseURL: String, token: String, client: String,
                 clock: any MonotonicClock, router: @escaping SignalingRouter) {
        self.clock = clock
        self.webSocket = Mutex(webSocket)
        self.welcome = welcome
        self.baseURL = baseURL
        self.token = token
        self.client = client
        self.router = router
        (unrouted, unroutedSink) = AsyncStream.makeStream()
        let reader = Task { [weak self] in
            var socket = webSocket
            while true {
                while let message = await socket.receive() {
                    guard let self else { return }
                    guard case .text(let text) = message else { continue }
                    guard let envelope = try? SignalingCodec.decode(text) else {
                        Log.warning(.signaling, "undecodable signaling message dropped")
                        continue
                    }
                    self.dispatch(envelope)
                }
                // Closed by the server for cause (credentials revoked, over quota, no common
                // version): a resume would be refused the same way.
                if let code = socket.closeCode?.rawValue, Self.finalCloseCodes.contains(code) {
                    Log.info(.signaling, "the server closed the connection with \(code): not resuming")
                    break
                }
                guard let self, let resumed = await self.resume() else { break }
                socket = resumed
            }
            self?.finishAll()
        }
        let heartbeat = Task { [weak self] in
            let interval = Duration.seconds(max(1, welcome.heartbeat))
            while !Task.isCancelled {
                try? await clock.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                self.send(.ping)
            }
        }
        tasks.withLock { $0 = [reader, heartbeat] }
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    /// Close codes after which the session is gone for good.
    static let finalCloseCodes: Set<UInt16> = [SignalingCloseCode.unauthorized, SignalingCloseCode.tooManyConnections,
                                               SignalingCloseCode.unsupportedVersion]

    /// Messages routed to `key` (for a call: the caller's call id before sending `invite`, or the
    /// SID of an incoming call); a route's alias adds a second key for the same subscriber.
    package func subscribe(_ key: String) -> AsyncStream<ChannelEvent> {
        let (stream, sink) = AsyncStream<ChannelEvent>.makeStream()
        let accepted = routes.withLock { routes -> Bool in
            guard !routes.closed else { return false }
            routes.byKey[key] = sink
            return true
        }
        if !accepted { sink.finish() }
        return stream
    }

    /// Stops routing `keys`; their stream finishes.
    package func unsubscribe(_ keys: [String]) {
        let sinks = routes.withLock { routes in keys.compactMap { routes.byKey.removeValue(forKey: $0) } }
        for sink in sinks { sink.finish() }
    }

    /// Sends in order (the socket's loop keeps the order); while resuming, messages are lost.
    package func send(_ message: SignalingMessage, id: String? = nil) {
        Log.debug(.signaling, "→ \(message.type.rawValue)")
        webSocket.withLock { $0 }.enqueue(text: SignalingCodec.encode(SignalingEnvelope(id: id, message: message)))
    }

    /// Closes the connection for good (no resume).
    package func close() async {
        routes.withLock { $0.closing = true }
        for task in tasks.withLock({ $0 }).dropFirst() { task.cancel() }  // the heartbeat; the reader ends with the socket
        await webSocket.withLock { $0 }.close()
        finishAll()
    }

    /// Drops the socket as a network failure would (tests): the channel resumes.
    package func simulateDrop() async {
        await reviveConnection()
    }

    /// Gives up the current socket (one that answers nothing, say after an outage, where TCP's
    /// backed-off retransmissions may keep it silent for many seconds more) and resumes the
    /// session on a new connection, as after a drop.
    package func reviveConnection() async {
        await webSocket.withLock { $0 }.abort()
    }

    /// After a drop: hello with `resume` every second until the server's resume window closes.
    private func resume() async -> WebSocket? {
        guard !routes.withLock({ $0.closing || $0.closed }) else { return nil }
        broadcast(.interrupted)
        let deadline = clock.now.advanced(by: .seconds(max(1, welcome.resumeWindow)))
        while clock.now < deadline, !routes.withLock({ $0.closing }) {
            do {
                let (socket, greeting) = try await Self.connect(baseURL: baseURL, token: token, client: client,
                                                                resume: welcome.session)
                guard case .resumed = greeting else {
                    await socket.close()  // a new session: the old one and its calls are gone
                    return nil
                }
                webSocket.withLock { $0 = socket }
                Log.info(.signaling, "session \(welcome.session) resumed")
                broadcast(.resumed)
                return socket
            } catch {
                Log.debug(.signaling, "resume failed: \(error)")
                try? await clock.sleep(for: .seconds(1))
            }
        }
        return nil
    }

    private func broadcast(_ event: ChannelEvent) {
        for sink in routes.withLock({ Array($0.byKey.values) }) { sink.yield(event) }
    }

    private func dispatch(_ envelope: SignalingEnvelope) {
        Log.debug(.signaling, "← \(envelope.message.type.rawValue)")
        if case .ping = envelope.message {
            send(.pong)
            return
        }
        if case .pong = envelope.message { return }
        let sink = router(envelope).flatMap { route in
            routes.withLock { routes in
                // Later messages carry the alias (a call's SID): route them to the same subscriber
                // from here on, before anything else is read.
                if let alias = route.alias { routes.byKey[alias] = routes.byKey[route.key] }
                return routes.byKey[route.key]
            }
        }
        if let sink {
            sink.yield(.message(envelope.message))
        } else {
            unroutedSink.yield(envelope)
        }
    }

    private func finishAll() {
        let sinks = routes.withLock { routes -> [AsyncStream<ChannelEvent>.Continuation] in
            routes.closed = true
            defer { routes.byKey = [:] }
            return Array(routes.byKey.values)
        }
        for sink in sinks { sink.finish() }
        unroutedSink.finish()
    }
}
