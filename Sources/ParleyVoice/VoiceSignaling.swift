import ParleyClientCore
import ParleyCore
import Signaling

/// How the voice SDK uses the client core's `SignalingChannel`: it names itself
/// `parley-swift/<version>` in `hello` and routes by call.
enum VoiceSignaling {
    static let client = "parley-swift/\(ParleyVersion.string)"

    /// Connects to `server` with `token` (see `SignalingChannel.open`).
    static func open(server: String, token: String) async throws(ParleyError) -> SignalingChannel {
        try await SignalingChannel.open(baseURL: server, token: token, client: client, clock: VoiceSettings.clock,
                                        router: route)
    }

    /// A call's messages go to its subscriber: by call SID, by the caller's call id until the SID
    /// is known (`callCreated` adds the SID as the route's alias), by the `ref` of an error.
    /// Incoming invites, cancellations, `listening` and `resumed` are unrouted: the listener's.
    @Sendable
    static func route(_ envelope: SignalingEnvelope) -> SignalingRoute? {
        let key: String? = switch envelope.message {
        case .callCreated(let created): created.callId
        case .ringing(let reference), .connected(let reference): reference.callSid ?? reference.callId
        case .answer(let answer): answer.callSid
        case .hangup(let hangup): hangup.callSid
        case .message(let message): message.callSid
        case .messageSent(let ack): ack.callSid
        case .messageFailed(let failure): failure.callSid
        case .error: envelope.ref
        default: nil
        }
        guard let key else { return nil }
        if case .callCreated(let created) = envelope.message { return SignalingRoute(key: key, alias: created.callSid) }
        return SignalingRoute(key: key)
    }
}
