/// One `;name[=value]` parameter of a URI (RFC 3261 §19.1.1, decoded) or of a header field
/// (RFC 3261 §25.1 `generic-param`, kept as received: a quoted value keeps its quotes, so it
/// serializes unchanged; ``unquotedValue`` gives its content).
public struct SIPParameter: Sendable, Hashable, CustomStringConvertible {
    /// The parameter name as received; names compare case-insensitively.
    public var name: String
    /// The value, nil for a flag such as `lr`.
    public var value: String?

    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// The value without the quotes and quoted-pair escapes of a `quoted-string`; a token value as is.
    public var unquotedValue: String? {
        guard let value, value.utf8.first == UInt8(ascii: "\"") else { return value }
        var scanner = SIPScanner(value)
        return scanner.quotedString() ?? value
    }

    /// `;name` or `;name=value` as a header field parameter.
    public var description: String { value.map { ";\(name)=\($0)" } ?? ";\(name)" }
}

extension [SIPParameter] {
    /// The first parameter named `name` (case-insensitive), if any.
    public func parameter(_ name: String) -> SIPParameter? {
        first { SIPCharacters.equalFold($0.name, name) }
    }

    /// Whether a parameter named `name` is present, with or without a value.
    public func contains(_ name: String) -> Bool { parameter(name) != nil }

    /// The unquoted value of the first parameter named `name`; nil when absent or valueless.
    public func value(_ name: String) -> String? { parameter(name)?.unquotedValue }

    /// Replaces the value of every parameter named `name` (or appends one); nil value makes a flag.
    public mutating func set(_ name: String, _ value: String?) {
        guard let index = firstIndex(where: { SIPCharacters.equalFold($0.name, name) }) else {
            append(SIPParameter(name, value))
            return
        }
        var result: [SIPParameter] = []
        for (i, parameter) in enumerated() where i == index || !SIPCharacters.equalFold(parameter.name, name) {
            result.append(i == index ? SIPParameter(parameter.name, value) : parameter)
        }
        self = result
    }

    /// Removes every parameter named `name`.
    public mutating func remove(_ name: String) { removeAll { SIPCharacters.equalFold($0.name, name) } }

    /// The parameters as `;name=value` text, in order.
    var headerText: String { map(\.description).joined() }
}

/// Reading the `*( SEMI generic-param )` tail of a header value.
extension SIPScanner {
    /// Parameters until the end or a top-level `,`; `name` is the header's name for errors.
    /// `gen-value` = token / host / quoted-string; `:` is also taken so RFC 5118's bare IPv6
    /// `received` values read whole.
    mutating func headerParameters(header name: String) throws(SIPParseError) -> [SIPParameter] {
        var parameters: [SIPParameter] = []
        while separator(UInt8(ascii: ";")) {
            guard let key = token() else { throw .invalidHeader(name: name) }
            guard separator(UInt8(ascii: "=")) else {
                parameters.append(SIPParameter(key))
                continue
            }
            if peek == UInt8(ascii: "\"") {
                let start = index
                guard quotedString() != nil else { throw .invalidHeader(name: name) }
                parameters.append(SIPParameter(key, String(decoding: bytes[start..<index], as: UTF8.self)))
            } else if let value = run(SIPScanner.parameterValue) {
                parameters.append(SIPParameter(key, value))
            } else {
                throw .invalidHeader(name: name)
            }
        }
        skipWhitespace()
        return parameters
    }

    static let parameterValue = SIPCharacters.Set("-.!%*_+`'~:[]")
}

extension SIPScanner {
    /// `token *( SEMI generic-param )`, the whole of `text` (Event, Subscription-State, Reason).
    static func tokenAndParameters(_ text: String, header: String) throws(SIPParseError) -> (String, [SIPParameter]) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let token = scanner.token() else { throw .invalidHeader(name: header) }
        let parameters = try scanner.headerParameters(header: header)
        guard scanner.isAtEnd else { throw .invalidHeader(name: header) }
        return (token, parameters)
    }
}
