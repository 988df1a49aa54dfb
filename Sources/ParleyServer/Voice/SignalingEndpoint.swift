import AccessToken
import HTTPWire
import ParleyCore
import ParleyNet
import Signaling
import Synchronization
import WebSocketWire

/// `GET /v1/signaling` (WebSocket): the signaling protocol of docs/signaling.md. The first
/// message must be a `hello` with a valid access token within 10 s; after that each message goes
/// to the `VoiceService`. Malformed messages get an `error` and the connection stays up; a silent
/// client (no message for three heartbeats) is closed.
struct SignalingEndpoint: Sendable {
    static let path = "/v1/signaling"

    let service: VoiceService
    let verifier: AccessTokenVerifier
    let metrics: ServerMetrics
    var helloTimeout: Duration = .seconds(10)
    var heartbeat: Duration = .seconds(20)

    func run(_ webSocket: WebSocket) async {
        let socket = SignalingSocket(webSocket)
        metrics.signalingConnectionOpened()
        defer { metrics.signalingConnectionClosed() }
        var iterator = webSocket.messages.makeAsyncIterator()
        let helloWatch = IdleSweeper.shared.watch(socket, limit: helloTimeout)
        guard let first = await iterator.next() else { return helloWatch.cancel() }
        helloWatch.cancel()
        let hello: Hello
        let helloID: String?
        do throws(SignalingError) {
            let envelope = try SignalingCodec.decode(Self.text(first))
            guard case .hello(let h) = envelope.message else {
                throw SignalingError(.malformedRequest, "the first message must be hello", id: envelope.id)
            }
            hello = h
            helloID = envelope.id
        } catch {
            metrics.countSignalingError(code: error.code.rawValue)
            socket.sendError(error.parleyError, ref: error.id)
            return await socket.close(code: WebSocketCloseCode(SignalingCloseCode.unauthorized), reason: "hello expected")
        }
        guard SignalingProtocol.negotiate(clientVersion: hello.v) != nil else {
            let error = ParleyError(.upgradeRequired, reason: "signaling protocol version \(hello.v) is not supported (this server speaks \(SignalingProtocol.version))")
            metrics.countSignalingError(code: error.code.rawValue)
            socket.sendError(error, ref: helloID)
            return await socket.close(code: WebSocketCloseCode(SignalingCloseCode.unsupportedVersion), reason: "unsupported version")
        }
        let token: VerifiedToken
        do {
            token = try verifier.verify(hello.token)
        } catch {
            metrics.countTokenRejected(code: error.code.rawValue)
            socket.sendError(error, ref: helloID)
            return await socket.close(code: WebSocketCloseCode(SignalingCloseCode.unauthorized), reason: "access token rejected")
        }
        metrics.countTokenAccepted()
        let (sessionID, _) = await service.attach(token: token, socket: socket, resume: hello.resume, ref: helloID)
        let idle = IdleSweeper.shared.watch(socket, limit: heartbeat * 3)
        while let message = await iterator.next() {
            idle.touch()
            do throws(SignalingError) {
                let envelope = try SignalingCodec.decode(Self.text(message))
                await service.handle(envelope, sessionID: sessionID)
            } catch {
                metrics.countSignalingError(code: error.code.rawValue)
                socket.sendError(error.parleyError, ref: error.id)
            }
        }
        idle.cancel()
        await service.detach(sessionID: sessionID, socket: socket)
    }

    /// Text frames as they are; binary frames are read as UTF-8 too (and fail to decode if they are not JSON).
    static func text(_ message: WebSocketMessage) -> [UInt8] {
        switch message {
        case .text(let text): Array(text.utf8)
        case .binary(let bytes): bytes
        }
    }
}

/// Closes signaling sockets that stay silent past their limit (no hello within 10 s, nothing for
/// three heartbeats). One task sweeps every watched socket each second, instead of a sleeping
/// task per connection.
final class IdleSweeper: Sendable {
    static let shared = IdleSweeper()

    /// One watched socket; `touch()` on every message, `cancel()` when it closes.
    final class Entry: Sendable {
        let socket: SignalingSocket
        let limit: Duration
        fileprivate let lastSeen: Mutex<ContinuousClock.Instant>
        fileprivate weak let sweeper: IdleSweeper?
        let id: Int

        fileprivate init(socket: SignalingSocket, limit: Duration, id: Int, sweeper: IdleSweeper) {
            self.socket = socket
            self.limit = limit
            self.id = id
            self.sweeper = sweeper
            lastSeen = Mutex(.now)
        }

        func touch() { lastSeen.withLock { $0 = .now } }
        func cancel() { sweeper?.remove(id) }
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextID = 0
        var sweeping = false
    }

    private let state = Mutex(State())

    func watch(_ socket: SignalingSocket, limit: Duration) -> Entry {
        let (entry, start) = state.withLock { s -> (Entry, Bool) in
            s.nextID += 1
            let entry = Entry(socket: socket, limit: limit, id: s.nextID, sweeper: self)
            s.entries[s.nextID] = entry
            defer { s.sweeping = true }
            return (entry, !s.sweeping)
        }
        if start { Task.detached { [self] in await sweep() } }
        return entry
    }

    fileprivate func remove(_ id: Int) { state.withLock { _ = $0.entries.removeValue(forKey: id) } }

    private func sweep() async {
        while true {
            try? await Task.sleep(for: .seconds(1))
            let now = ContinuousClock.now
            let expired = state.withLock { s -> [Entry] in
                let gone = s.entries.values.filter { entry in entry.lastSeen.withLock { now - $0 } > entry.limit }
                for entry in gone { s.entries[entry.id] = nil }
                return gone
            }
            for entry in expired {
                await entry.socket.webSocket.close(code: WebSocketCloseCode(SignalingCloseCode.timedOut), reason: "timed out")
            }
        }
    }
}
