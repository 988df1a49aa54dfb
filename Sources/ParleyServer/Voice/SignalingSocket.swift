import ParleyCore
import ParleyNet
import Signaling
import WebSocketWire

/// A signaling WebSocket seen from the server: messages are queued and written in order by one
/// writer task, so callers (the `VoiceService` actor) never wait on the network.
final class SignalingSocket: Sendable {
    let webSocket: WebSocket
    private let outbox: AsyncStream<String>.Continuation
    private let writer: Task<Void, Never>

    init(_ webSocket: WebSocket) {
        self.webSocket = webSocket
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(1024))
        outbox = continuation
        writer = Task {
            for await text in stream {
                do { try await webSocket.send(text: text) } catch { break }
            }
        }
    }

    /// Queues `message` (with `ref` when it answers a request).
    func send(_ message: SignalingMessage, ref: String? = nil) {
        outbox.yield(SignalingCodec.encode(SignalingEnvelope(ref: ref, message: message)))
    }

    /// Queues an error reply.
    func sendError(_ error: ParleyError, ref: String?) {
        send(.error(SignalingErrorBody(code: error.code.rawValue, message: error.failureReason ?? error.code.text)), ref: ref)
    }

    /// Flushes what is queued, then closes with `code`.
    func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        outbox.finish()
        await writer.value
        await webSocket.close(code: code, reason: reason)
    }

    /// Stops writing at once (the peer is gone).
    func abandon() {
        outbox.finish()
        writer.cancel()
    }
}
