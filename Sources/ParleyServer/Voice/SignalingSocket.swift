import ParleyCore
import ParleyNet
import Signaling
import WebSocketWire

/// A signaling WebSocket seen from the server. Messages are queued on the connection's event
/// loop in order, so callers (the `VoiceService` actor) never wait on the network, and an idle
/// connection holds no task or stream of its own.
final class SignalingSocket: Sendable {
    let webSocket: WebSocket

    init(_ webSocket: WebSocket) {
        self.webSocket = webSocket
    }

    /// Queues `message` (with `ref` when it answers a request).
    func send(_ message: SignalingMessage, ref: String? = nil) {
        webSocket.enqueue(text: SignalingCodec.encode(SignalingEnvelope(ref: ref, message: message)))
    }

    /// Queues an error reply.
    func sendError(_ error: ParleyError, ref: String?) {
        send(.error(SignalingErrorBody(code: error.code.rawValue, message: error.failureReason ?? error.code.text)), ref: ref)
    }

    /// Closes with `code` after what is queued (the loop runs the close after the sends).
    func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        await webSocket.close(code: code, reason: reason)
    }
}
