// HTTP/2 error codes and errors, the vocabulary of `HTTP2ClientError` (moved here from HTTP2Wire
// when the client moved onto libnghttp2).

/// An HTTP/2 error code (RFC 9113 §7), as carried by RST_STREAM and GOAWAY. Unknown codes are kept
/// (§7: "unknown or unsupported error codes MUST NOT trigger any special behavior").
public struct HTTP2ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let noError = HTTP2ErrorCode(rawValue: 0x0)
    public static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    public static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    public static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    public static let settingsTimeout = HTTP2ErrorCode(rawValue: 0x4)
    public static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    public static let frameSizeError = HTTP2ErrorCode(rawValue: 0x6)
    public static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    public static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    public static let compressionError = HTTP2ErrorCode(rawValue: 0x9)
    public static let connectError = HTTP2ErrorCode(rawValue: 0xa)
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xb)
    public static let inadequateSecurity = HTTP2ErrorCode(rawValue: 0xc)
    public static let http11Required = HTTP2ErrorCode(rawValue: 0xd)

    private static let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
                                "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM",
                                "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
                                "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]

    /// The RFC's name, e.g. `PROTOCOL_ERROR`, or `0x…` for an unknown code.
    public var description: String {
        rawValue < UInt32(Self.names.count) ? Self.names[Int(rawValue)] : "0x" + String(rawValue, radix: 16)
    }
}

/// A violation of RFC 9113 found while parsing or processing frames, with the error code and the
/// scope the RFC assigns it (§5.4): a connection error ends the connection with GOAWAY, a stream
/// error resets one stream with RST_STREAM.
public struct HTTP2Error: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Scope: Sendable, Equatable {
        /// §5.4.1: the whole connection is unusable.
        case connection
        /// §5.4.2: only this stream is affected.
        case stream(UInt32)
    }

    public var code: HTTP2ErrorCode
    public var scope: Scope
    /// What was wrong, for logs (never contains header values).
    public var reason: String

    public init(code: HTTP2ErrorCode, scope: Scope, reason: String) {
        self.code = code
        self.scope = scope
        self.reason = reason
    }

    /// A connection error (§5.4.1).
    public static func connection(_ code: HTTP2ErrorCode, _ reason: String) -> HTTP2Error {
        HTTP2Error(code: code, scope: .connection, reason: reason)
    }

    /// A stream error (§5.4.2).
    public static func stream(_ id: UInt32, _ code: HTTP2ErrorCode, _ reason: String) -> HTTP2Error {
        HTTP2Error(code: code, scope: .stream(id), reason: reason)
    }

    public var isConnectionError: Bool { scope == .connection }

    public var description: String {
        switch scope {
        case .connection: "HTTP/2 connection error \(code): \(reason)"
        case .stream(let id): "HTTP/2 stream \(id) error \(code): \(reason)"
        }
    }
}
