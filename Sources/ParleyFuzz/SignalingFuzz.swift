import Signaling

/// Feeds bytes to the signaling codec as one WebSocket text message and, when they decode, checks
/// that encoding and decoding again gives the same envelope and the same text.
enum SignalingFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        guard let envelope = try? SignalingCodec.decode(data) else { return }
        let text = SignalingCodec.encode(envelope)
        guard let again = try? SignalingCodec.decode(text), again == envelope else {
            fatalError("signaling decode -> encode -> decode is unstable")
        }
        guard SignalingCodec.encode(again) == text else {
            fatalError("signaling encoding is not stable")
        }
        _ = (envelope.message.type.rawValue, envelope.message.sender)
    }
}
