/// Why an HTTP/1.1 message could not be parsed. Each case maps to the status a server should answer.
public enum HTTPParseError: Error, Sendable, Hashable {
    /// The request line or status line is malformed (RFC 9112 §3, §4).
    case badStartLine
    /// The version is not HTTP/1.x.
    case unsupportedVersion
    /// A header field line is malformed, or uses obsolete line folding (RFC 9112 §5.2).
    case badHeader
    /// The start line and headers exceed `maxHeaderBytes`, or there are too many fields.
    case headersTooLarge
    /// `Content-Length` is malformed or conflicts with itself (RFC 9112 §6.3).
    case badContentLength
    /// Both `Transfer-Encoding` and `Content-Length` were sent (RFC 9112 §6.1, request smuggling).
    case conflictingFraming
    /// A transfer coding other than `chunked` (RFC 9112 §6.1).
    case unsupportedTransferEncoding
    /// A chunk-size line or chunk delimiter is malformed (RFC 9112 §7.1).
    case badChunk
    /// The body exceeds `maxBodyBytes`.
    case bodyTooLarge
    /// The connection closed before the message was complete.
    case truncated

    /// The status a server answers with (400, 413, 431, 501, 505).
    public var status: Int {
        switch self {
        case .headersTooLarge: 431
        case .bodyTooLarge: 413
        case .unsupportedTransferEncoding: 501
        case .unsupportedVersion: 505
        default: 400
        }
    }
}
