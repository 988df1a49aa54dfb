import AccessToken
import ParleyCore
import ParleyNet
import PlatformCore
import Signaling
import WebSocketWire

/// `GET /v1/signaling` (WebSocket): the signaling protocol of docs/signaling.md. The first
/// message must be a `hello` with a valid access token within 10 s; after that each message goes
/// to the `VoiceService` (room requests to its `RoomSignalingHandler`, if any). Malformed messages get an `error` and the connection stays up; a silent
/// client (no message for three heartbeats) is closed.
///
/// A connection holds no task while it is idle: the socket receives its messages on the event
/// loop (`SignalingSocket`), and a task handles them, in order, only while some are waiting.
package final class SignalingEndpoint: Sendable {
    static let path = "/v1/signaling"

    let service: VoiceService
    let verifier: AccessTokenVerifier
    let metrics: ServerMetrics
    let helloTimeout: Duration
    let heartbeat: Duration

    package init(service: VoiceService, verifier: AccessTokenVerifier, metrics: ServerMetrics,
         helloTimeout: Duration = .seconds(10), heartbeat: Duration = .seconds(20)) {
        self.service = service
        self.verifier = verifier
        self.metrics = metrics
        self.helloTimeout = helloTimeout
        self.heartbeat = heartbeat
    }

    /// Registers the endpoint on `server`.
    package func install(on server: HTTPServer) {
        server.addWebSocketRoute(Self.path) { [self] _, webSocket in accept(webSocket) }
    }

    /// A new connection (on the event loop): it has `helloTimeout` to say hello.
    func accept(_ webSocket: WebSocket) -> SignalingSocket {
        let socket = SignalingSocket(webSocket, endpoint: self, idleLimit: helloTimeout)
        metrics.signalingConnectionOpened()
        IdleSweeper.shared.watch(socket)
        return socket
    }

    /// One message, in arrival order (from the socket's drain task).
    func handle(_ message: WebSocketMessage, from socket: SignalingSocket) async {
        switch socket.phase {
        case .hello:
            await hello(message, from: socket)
        case .attached(let sessionID):
            do throws(SignalingError) {
                let envelope = try SignalingCodec.decode(Self.text(message))
                if let rooms = service.roomSignaling, Self.isRoomRequest(envelope.message) {
                    await roomRequest(envelope, sessionID: sessionID, handler: rooms, socket: socket)
                } else {
                    await service.handle(envelope, sessionID: sessionID)
                }
            } catch {
                metrics.countSignalingError(code: error.code.rawValue)
                socket.sendError(error.parleyError, ref: error.id)
            }
        case .refused:
            break  // closing: the rest is not read
        }
    }

    /// The connection closed (after its last message was handled).
    func closed(_ socket: SignalingSocket) async {
        IdleSweeper.shared.remove(socket)
        if case .attached(let sessionID) = socket.phase {
            await service.detach(sessionID: sessionID, socket: socket, finished: socket.webSocket.closedNormallyByPeer)
        }
        metrics.signalingConnectionClosed()
    }

    private func hello(_ first: WebSocketMessage, from socket: SignalingSocket) async {
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
            return socket.refuse(error.parleyError, ref: error.id, code: SignalingCloseCode.unauthorized, reason: "hello expected")
        }
        guard SignalingProtocol.negotiate(clientVersion: hello.v) != nil else {
            let error = ParleyError(.upgradeRequired, reason: "signaling protocol version \(hello.v) is not supported (this server speaks \(SignalingProtocol.version))")
            metrics.countSignalingError(code: error.code.rawValue)
            return socket.refuse(error, ref: helloID, code: SignalingCloseCode.unsupportedVersion, reason: "unsupported version")
        }
        let token: VerifiedToken
        do {
            token = try verifier.verify(hello.token)
        } catch {
            metrics.countTokenRejected(code: error.code.rawValue)
            return socket.refuse(error, ref: helloID, code: SignalingCloseCode.unauthorized, reason: "access token rejected")
        }
        metrics.countTokenAccepted()
        switch await service.attach(token: token, socket: socket, resume: hello.resume, ref: helloID) {
        case .attached(let sessionID, _):
            socket.webSocket.markAuthenticated()
            socket.attached(sessionID: sessionID, idleLimit: heartbeat * 3)
        case .refused(let error):
            metrics.countSignalingError(code: error.code.rawValue)
            socket.refuse(error, ref: helloID, code: SignalingCloseCode.tooManyConnections, reason: "too many connections")
        }
    }

    /// Text frames as they are; binary frames are read as UTF-8 too (and fail to decode if they are not JSON).
    static func text(_ message: WebSocketMessage) -> [UInt8] {
        switch message {
        case .text(let text): Array(text.utf8)
        case .binary(let bytes): bytes
        }
    }
}
