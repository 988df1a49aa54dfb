/// Why a TwiML document was refused: malformed XML, a limit exceeded, or XML that is not valid
/// TwiML (unknown verb or noun, bad attribute value, wrong root). The server reports it as a
/// 31500-class failure with `description` as the reason.
public struct TwiMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Hashable {
        /// Not well-formed XML 1.0 (or a construct this reader refuses, such as a DOCTYPE).
        case malformedXML
        /// The document exceeds one of `TwiMLLimits`.
        case limitExceeded
        /// Well-formed XML that is not a valid TwiML `<Response>`.
        case invalidTwiML
    }

    public var kind: Kind
    /// A human-readable reason, e.g. `unknown verb <Enqueue>`.
    public var reason: String
    /// Byte offset into the document where the problem was found, when known.
    public var offset: Int?

    public init(_ kind: Kind, _ reason: String, at offset: Int? = nil) {
        self.kind = kind
        self.reason = reason
        self.offset = offset
    }

    /// The code Twilio's debugger logs for this class of failure: 12100 (document parse failure)
    /// or 12200 (schema validation).
    public var twilioErrorCode: Int { kind == .invalidTwiML ? 12200 : 12100 }

    public var description: String {
        guard let offset else { return reason }
        return "\(reason) (at byte \(offset))"
    }

    static func malformed(_ reason: String, at offset: Int) -> TwiMLError { TwiMLError(.malformedXML, reason, at: offset) }
    static func limit(_ reason: String, at offset: Int) -> TwiMLError { TwiMLError(.limitExceeded, reason, at: offset) }
    static func invalid(_ reason: String, at offset: Int?) -> TwiMLError { TwiMLError(.invalidTwiML, reason, at: offset) }
}

/// Limits the XML reader enforces while it reads, so hostile documents cost bounded memory and time.
public struct TwiMLLimits: Sendable, Hashable {
    /// Bytes of the whole document.
    public var maxDocumentBytes: Int
    /// Nesting depth of elements; the root element is depth 1.
    public var maxDepth: Int
    /// Attributes on one element.
    public var maxAttributesPerElement: Int
    /// Decoded bytes of one text node or one attribute value.
    public var maxTextBytes: Int
    /// Elements in the whole document.
    public var maxElements: Int
    /// Bytes of one element or attribute name.
    public var maxNameBytes: Int

    public init(maxDocumentBytes: Int = 64 * 1024, maxDepth: Int = 16, maxAttributesPerElement: Int = 32,
                maxTextBytes: Int = 16 * 1024, maxElements: Int = 4096, maxNameBytes: Int = 128) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxDepth = maxDepth
        self.maxAttributesPerElement = maxAttributesPerElement
        self.maxTextBytes = maxTextBytes
        self.maxElements = maxElements
        self.maxNameBytes = maxNameBytes
    }
}
