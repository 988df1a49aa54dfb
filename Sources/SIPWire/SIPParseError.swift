/// Why bytes are not an acceptable SIP message or header value.
///
/// Each case says enough for the reason phrase of the answer: ``statusCode`` and ``reasonPhrase``
/// give the response a server sends when it can still answer (RFC 3261 §8.2, §21.4.1), e.g.
/// `400 Bad Request (Missing Call-ID)` or `505 Version Not Supported`.
public enum SIPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input holds no message (nothing, or only CRLFs).
    case empty
    /// The message exceeds `SIPLimits.maxMessageBytes` (a stream transport closes the connection;
    /// a datagram is answered with 513 when it can be, RFC 3261 §21.5.14).
    case messageTooLarge(limit: Int)
    /// More header fields than `SIPLimits.maxHeaderCount`.
    case tooManyHeaders(limit: Int)
    /// The header section has no terminating empty line.
    case incompleteHead
    /// The first line is neither a Request-Line nor a Status-Line (RFC 3261 §7.1, §7.2).
    case invalidStartLine
    /// The method is not a `token` (RFC 3261 §25.1).
    case invalidMethod
    /// The Request-URI does not parse, is enclosed in `<>`, or carries headers (RFC 3261 §19.1.1).
    case invalidRequestURI
    /// The SIP-Version is not `SIP/2.0` (answered with 505, RFC 3261 §21.5.6).
    case unsupportedVersion(String)
    /// The Status-Code is not three digits from 100 to 699 (RFC 3261 §7.2, §21).
    case invalidStatusCode
    /// A header line that is not `name: value` (1-based line number within the message).
    case invalidHeaderLine(line: Int)
    /// A header field whose value does not match its grammar; `name` is the canonical header name.
    case invalidHeader(name: String)
    /// A header field a message must carry is absent (RFC 3261 §8.1.1).
    case missingHeader(String)
    /// A header field that may appear once appears more than once (RFC 4475 §3.3.8, §3.3.9).
    case duplicateHeader(String)
    /// Content-Length is missing on a stream transport (RFC 3261 §18.3) or malformed.
    case invalidContentLength
    /// Content-Length announces more bytes than the datagram holds (RFC 3261 §18.3).
    case bodyTruncated(expected: Int, available: Int)
    /// The CSeq method differs from the request method (RFC 3261 §8.1.1.5, RFC 4475 §3.1.2.17).
    case cseqMethodMismatch
    /// A URI that does not match the sip/sips/tel grammar (RFC 3261 §19.1, RFC 3966 §3).
    case invalidURI

    /// The status code for the answer: 505 for a version, 513 for size, 400 otherwise.
    public var statusCode: Int {
        switch self {
        case .unsupportedVersion: 505
        case .messageTooLarge: 513
        default: 400
        }
    }

    /// A reason phrase saying what was wrong, e.g. `Bad Request (Missing Call-ID)`.
    public var reasonPhrase: String {
        switch self {
        case .unsupportedVersion: "Version Not Supported"
        case .messageTooLarge: "Message Too Large"
        default: "Bad Request (\(detail))"
        }
    }

    /// What was wrong, in words.
    public var detail: String {
        switch self {
        case .empty: "Empty message"
        case .messageTooLarge(let limit): "Message over \(limit) bytes"
        case .tooManyHeaders(let limit): "More than \(limit) header fields"
        case .incompleteHead: "Header section not terminated"
        case .invalidStartLine: "Malformed start line"
        case .invalidMethod: "Malformed method"
        case .invalidRequestURI: "Malformed Request-URI"
        case .unsupportedVersion(let version): "Unsupported version \(version)"
        case .invalidStatusCode: "Malformed status code"
        case .invalidHeaderLine(let line): "Malformed header line \(line)"
        case .invalidHeader(let name): "Malformed \(name)"
        case .missingHeader(let name): "Missing \(name)"
        case .duplicateHeader(let name): "Multiple \(name)"
        case .invalidContentLength: "Missing or malformed Content-Length"
        case .bodyTruncated(let expected, let available): "Content-Length \(expected) over the \(available) body bytes"
        case .cseqMethodMismatch: "CSeq method does not match"
        case .invalidURI: "Malformed URI"
        }
    }

    public var description: String { "SIP: \(detail)" }
}

/// Size limits the parsers enforce before buffering or allocating more.
public struct SIPLimits: Sendable, Hashable {
    /// Bytes of a whole message (start line, headers, body). RFC 3261 §18.1.1 has UDP messages
    /// under 64 KB; streams use the same bound, and a larger message closes the connection.
    public var maxMessageBytes: Int
    /// Header fields in one message (a field with a comma list counts once).
    public var maxHeaderCount: Int

    public init(maxMessageBytes: Int = 65_536, maxHeaderCount: Int = 256) {
        self.maxMessageBytes = maxMessageBytes
        self.maxHeaderCount = maxHeaderCount
    }

    /// 64 KB messages, 256 header fields.
    public static let `default` = SIPLimits()
}
