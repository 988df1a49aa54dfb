/// A complete data message (RFC 6455 §5.6).
public enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case binary([UInt8])
}

/// What a reader produces: data messages and control frames (§5.5).
public enum WebSocketEvent: Sendable, Hashable {
    case message(WebSocketMessage)
    case ping([UInt8])
    case pong([UInt8])
    /// A close frame; `code` is nil when the frame had no payload (report as 1005, §7.1.5).
    case close(code: WebSocketCloseCode?, reason: String)
}
