/// Size and shape limits of the signaling protocol, enforced by `SignalingCodec.decode`.
public enum SignalingLimits {
    /// The largest text message, in bytes of UTF-8; the server refuses bigger frames (close 1009).
    public static let maxMessageBytes = 64 * 1024
    /// The largest call-message body, in bytes of UTF-8.
    public static let maxBodyBytes = 10 * 1024
    /// The largest SDP, in bytes of UTF-8.
    public static let maxSDPBytes = 32 * 1024
    /// The most custom parameters of an invite or incoming call.
    public static let maxParams = 64
    /// The longest id, SID, identity, parameter name, session, content or message type.
    public static let maxIdentifierBytes = 256
    /// The longest access token.
    public static let maxTokenBytes = 8 * 1024
    /// The longest human-readable reason or error message.
    public static let maxReasonBytes = 2048
    /// The most DTMF digits in one `dtmf` message.
    public static let maxDigits = 64
    /// The most calls listed in `resumed`.
    public static let maxResumedCalls = 256
    /// The deepest JSON nesting accepted (payloads use 3 levels; the rest is room for unknown fields).
    public static let maxJSONDepth = 16
}

/// Constants of the protocol itself: version, endpoint, timers.
public enum SignalingProtocol {
    /// The protocol version this library speaks.
    public static let version = 1
    /// The versions this library can speak.
    public static let supportedVersions: ClosedRange<Int> = 1...1
    /// The WebSocket endpoint on the server's HTTP port.
    public static let path = "/v1/signaling"
    /// Seconds the server waits for `hello` before closing the connection.
    public static let helloTimeoutSeconds = 10
    /// Seconds a session and its calls outlive a dropped socket.
    public static let resumeWindowSeconds = 30
    /// Default seconds between heartbeats.
    public static let heartbeatSeconds = 20
    /// Heartbeat intervals of silence after which a peer is dead.
    public static let missedHeartbeatsBeforeDead = 3

    /// The version to speak with a client that offers `clientVersion` (its highest), or nil when
    /// there is none (answer 31426 and close with 4426).
    public static func negotiate(clientVersion: Int) -> Int? {
        let version = min(clientVersion, supportedVersions.upperBound)
        return supportedVersions.contains(version) ? version : nil
    }
}

/// WebSocket close codes the protocol uses (RFC 6455 §7.4; 4000–4999 are private use).
public enum SignalingCloseCode {
    /// Normal closure.
    public static let normal: UInt16 = 1000
    /// The server is shutting down.
    public static let goingAway: UInt16 = 1001
    /// A message over `SignalingLimits.maxMessageBytes`.
    public static let messageTooBig: UInt16 = 1009
    /// Internal server error.
    public static let internalError: UInt16 = 1011
    /// The `hello` was refused (not a valid hello, or the token was rejected), or the API key that
    /// signed the session's token was revoked.
    public static let unauthorized: UInt16 = 4401
    /// Timed out: no `hello` within 10 s, or nothing received for 3 heartbeat intervals.
    public static let timedOut: UInt16 = 4408
    /// No common protocol version.
    public static let unsupportedVersion: UInt16 = 4426
    /// The `hello` was refused: the identity or its API key holds its quota of signaling
    /// connections (error 31429 names the limit).
    public static let tooManyConnections: UInt16 = 4429
}
