
/// One HTTP/2 request (RFC 9113 §8.3.1): pseudo-header values plus ordinary fields and a body.
public struct HTTP2Request: Sendable {
    public var method: String
    /// `:path`: path and query, e.g. `/3/device/abc`.
    public var path: String
    /// `:authority`; nil uses the client's host (and port when not the default).
    public var authority: String?
    /// Ordinary fields. Names are sent lowercased (§8.2.1); connection-specific fields are dropped (§8.2.2).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String = "GET", path: String = "/", authority: String? = nil,
                headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
    }
}

/// A complete HTTP/2 response: the final status, its fields (pseudo-fields removed, trailers
/// appended), and the body.
public struct HTTP2Response: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of field `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }

    /// The body as UTF-8 text (invalid sequences become U+FFFD).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// HTTP/2-specific failures of a request. Socket, TLS and timeout failures are `NetError`s.
public enum HTTP2ClientError: Error, Sendable, CustomStringConvertible {
    /// The peer broke RFC 9113 (or HPACK); the connection was closed with GOAWAY carrying this error.
    case protocolViolation(HTTP2Error)
    /// The server reset the stream with this code (RST_STREAM, §6.4).
    case streamReset(HTTP2ErrorCode)
    /// The server sent GOAWAY with this code and closed before answering this stream.
    case goAway(HTTP2ErrorCode)
    /// The response body exceeded the configured limit; the stream was cancelled.
    case responseTooLarge(Int)
    /// The response fields exceeded SETTINGS_MAX_HEADER_LIST_SIZE; the stream was reset.
    case headerListTooLarge(Int)
    /// TLS completed without ALPN selecting `h2` (RFC 9113 §3.2); carries what was selected.
    case alpnNotNegotiated(String?)
    /// The request could not be sent after retries on fresh connections (refused or GOAWAY).
    case retriesExhausted

    public var description: String {
        switch self {
        case .protocolViolation(let error): "\(error)"
        case .streamReset(let code): "stream reset by the server: \(code)"
        case .goAway(let code): "the server went away (\(code)) before answering"
        case .responseTooLarge(let limit): "response body exceeds \(limit) octets"
        case .headerListTooLarge(let size): "response header list of \(size) octets is too large"
        case .alpnNotNegotiated(let selected): "TLS ALPN selected \(selected ?? "nothing"), not h2"
        case .retriesExhausted: "the request was refused on every attempt"
        }
    }
}
