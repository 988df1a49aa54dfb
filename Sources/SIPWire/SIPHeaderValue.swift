/// A typed header field value: parsed from one element of a header (one field, or one element of
/// a comma list) and written back as text.
public protocol SIPHeaderValue: Sendable, Hashable {
    /// Parses one element; throws `SIPParseError.invalidHeader` naming `header` when it does not
    /// match the grammar.
    init(parsing text: String, header: String) throws(SIPParseError)
    /// The value as written in a header field.
    var headerValue: String { get }
}

extension SIPHeaders {
    /// The first element of `name` parsed as `T`; nil when the header is absent.
    public func first<T: SIPHeaderValue>(_ name: String, as type: T.Type) throws(SIPParseError) -> T? {
        guard let element = elements(name).first else { return nil }
        return try T(parsing: element, header: SIPHeaderName.canonical(name))
    }

    /// Every element of `name` parsed as `T`, in order.
    public func all<T: SIPHeaderValue>(_ name: String, as type: T.Type) throws(SIPParseError) -> [T] {
        let header = SIPHeaderName.canonical(name)
        return try elements(name).map { element throws(SIPParseError) in try T(parsing: element, header: header) }
    }

    /// Replaces every field of `name` by one holding `value`.
    public mutating func set(_ name: String, _ value: some SIPHeaderValue) { set(name, value.headerValue) }

    /// Appends a field of `name` holding `value`.
    public mutating func add(_ name: String, _ value: some SIPHeaderValue) { add(name, value.headerValue) }
}

/// An unsigned decimal header value with optional parameters: Max-Forwards, Expires,
/// Min-Expires, Content-Length, RSeq, Min-SE (RFC 3261 §20, RFC 3262 §7.1, RFC 4028 §5).
public struct SIPNumberHeader<Number: FixedWidthInteger & UnsignedInteger & Sendable>: SIPHeaderValue {
    public var value: Number
    /// Parameters after the number (Min-SE allows them, RFC 4028 §5).
    public var parameters: [SIPParameter]

    public init(_ value: Number, parameters: [SIPParameter] = []) {
        self.value = value
        self.parameters = parameters
    }

    /// Refuses values outside `Number` (RFC 4475 §3.1.2.4: Max-Forwards 300, 2^64 CSeq).
    public init(parsing text: String, header: String) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let digits = scanner.run(SIPCharacters.digit), let value = SIPCharacters.decimal(digits, as: Number.self) else {
            throw .invalidHeader(name: header)
        }
        self.value = value
        parameters = try scanner.headerParameters(header: header)
        guard scanner.isAtEnd else { throw .invalidHeader(name: header) }
    }

    public var headerValue: String { String(value) + parameters.headerText }
}

/// A comma list of tokens: Require, Supported, Proxy-Require, Unsupported, Allow, Allow-Events
/// (RFC 3261 §20.5, §20.32, §20.37), read one element at a time.
public struct SIPToken: SIPHeaderValue {
    public var token: String

    public init(_ token: String) { self.token = token }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        guard SIPCharacters.token.containsAll(text) else { throw .invalidHeader(name: header) }
        token = text
    }

    public var headerValue: String { token }
}

/// `Call-ID` = word [ "@" word ] (RFC 3261 §25.1).
public struct SIPCallID: SIPHeaderValue {
    public var value: String

    public init(_ value: String) { self.value = value }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        let parts = text.utf8.split(separator: UInt8(ascii: "@"), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(SIPCharacters.word.contains) }) else {
            throw .invalidHeader(name: header)
        }
        value = text
    }

    public var headerValue: String { value }
}

/// `Content-Type` (RFC 3261 §20.15): `type/subtype` with parameters, e.g. `application/sdp`,
/// `multipart/mixed;boundary=…`. Type and subtype compare case-insensitively.
public struct SIPMediaType: SIPHeaderValue {
    public var type: String
    public var subtype: String
    public var parameters: [SIPParameter]

    public init(type: String, subtype: String, parameters: [SIPParameter] = []) {
        self.type = type
        self.subtype = subtype
        self.parameters = parameters
    }

    public static let sdp = SIPMediaType(type: "application", subtype: "sdp")

    public init(parsing text: String, header: String) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let type = scanner.token(), scanner.separator(UInt8(ascii: "/")), let subtype = scanner.token() else {
            throw .invalidHeader(name: header)
        }
        self.type = type
        self.subtype = subtype
        parameters = try scanner.headerParameters(header: header)
        guard scanner.isAtEnd else { throw .invalidHeader(name: header) }
    }

    /// Whether this is `type/subtype`, ignoring case and parameters.
    public func matches(_ other: SIPMediaType) -> Bool {
        SIPCharacters.equalFold(type, other.type) && SIPCharacters.equalFold(subtype, other.subtype)
    }

    public var headerValue: String { "\(type)/\(subtype)" + parameters.headerText }
}
