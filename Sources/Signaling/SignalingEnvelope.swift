import ParleyCore
/// A signaling message with its request id (`id`, sent by the requester) and the id it answers
/// (`ref`, set by the server on a reply or an error).
public struct SignalingEnvelope: Sendable, Equatable {
    /// The client's request id; the server echoes it as `ref` in the reply or error.
    public var id: String?
    /// The id of the request this message answers.
    public var ref: String?
    public var message: SignalingMessage

    public init(id: String? = nil, ref: String? = nil, message: SignalingMessage) {
        self.id = id
        self.ref = ref
        self.message = message
    }

    /// A bare message: no `id`, no `ref`.
    public init(_ message: SignalingMessage) {
        self.init(id: nil, ref: nil, message: message)
    }

    /// The `error` reply for a message that failed to decode, referring to its `id` when it was readable.
    public init(replyingTo error: SignalingError) {
        self.init(id: nil, ref: error.id, message: .error(SignalingErrorBody(code: error.code.rawValue, message: error.reason)))
    }
}
