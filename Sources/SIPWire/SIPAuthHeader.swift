/// An authentication header of any scheme (RFC 3261 §20.7, §20.27, §20.28, §20.44, §25.1;
/// RFC 7235 §2.1): `scheme auth-param *(COMMA auth-param)`, or a token68 (`Basic …`).
/// WWW-Authenticate, Authorization, Proxy-Authenticate and Proxy-Authorization are not comma
/// lists of values: their commas separate parameters, so each field is one value.
/// ``SIPDigestChallenge`` and ``SIPDigestCredentials`` read the Digest scheme's parameters.
public struct SIPAuthHeader: SIPHeaderValue {
    /// The scheme as received (`Digest`; compare case-insensitively).
    public var scheme: String
    /// Parameters in order, values as received (quoted ones keep their quotes; read them with
    /// `parameters.value(_:)`, which unquotes).
    public var parameters: [SIPParameter]
    /// A token68 credential (`Basic dXNlcjpwYXNz`) instead of parameters.
    public var token68: String?

    public init(scheme: String, parameters: [SIPParameter] = [], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = parameters
        self.token68 = token68
    }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let scheme = scanner.token() else { throw .invalidHeader(name: header) }
        self.scheme = scheme
        parameters = []
        let afterScheme = scanner.index
        scanner.skipWhitespace()
        guard scanner.index > afterScheme || scanner.isAtEnd else { throw .invalidHeader(name: header) }
        // token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" (RFC 7235 §2.1).
        let start = scanner.index
        if scanner.run(Self.token68Characters) != nil {
            var rest = scanner
            _ = rest.run(Self.padding)
            rest.skipWhitespace()
            if rest.isAtEnd {
                token68 = String(decoding: scanner.bytes[start...], as: UTF8.self).trimmingTrailingWhitespace
                return
            }
        }
        scanner = SIPScanner(String(decoding: scanner.bytes[start...], as: UTF8.self))
        while !scanner.isAtEnd {
            if scanner.separator(UInt8(ascii: ",")) { continue }  // empty list elements (RFC 7230 §7)
            guard let name = scanner.token(), scanner.separator(UInt8(ascii: "=")) else { throw .invalidHeader(name: header) }
            let valueStart = scanner.index
            if scanner.peek == UInt8(ascii: "\"") {
                guard scanner.quotedString() != nil else { throw .invalidHeader(name: header) }
            } else if scanner.peek == UInt8(ascii: "=") || scanner.run(Self.valueCharacters) == nil {
                // A value may hold `=` (unquoted base64 nonces) but not start with one: `a==`
                // would be a token68 (fuzz/regressions/sip-digest/token68-padding-then-commas).
                throw .invalidHeader(name: header)
            }
            parameters.append(SIPParameter(name, String(decoding: scanner.bytes[valueStart..<scanner.index], as: UTF8.self)))
            scanner.skipWhitespace()
            guard scanner.isAtEnd || scanner.separator(UInt8(ascii: ",")) else { throw .invalidHeader(name: header) }
        }
    }

    /// `scheme name=value, name=value` (or `scheme token68`).
    public var headerValue: String {
        if let token68 { return "\(scheme) \(token68)" }
        return scheme + " " + parameters.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: ", ")
    }

    /// Whether the scheme is `Digest`.
    public var isDigest: Bool { SIPCharacters.equalFold(scheme, "Digest") }

    private static let token68Characters = SIPCharacters.Set("-._~+/")
    private static let padding = SIPCharacters.Set("=", alphanumerics: false)
    /// Unquoted values: tokens, plus `/`, `:` and `=` seen from real clients.
    private static let valueCharacters = SIPCharacters.Set("-.!%*_+`'~/:=@[]")
}

extension String {
    fileprivate var trimmingTrailingWhitespace: String {
        var utf8 = Array(utf8)
        while let last = utf8.last, SIPCharacters.isWhitespace(last) { utf8.removeLast() }
        return String(decoding: utf8, as: UTF8.self)
    }
}

/// A Digest challenge or credentials: read from the parameters of a `Digest` authentication
/// header (``SIPAuthHeader``), parsed from text through it.
public protocol SIPDigestHeaderValue: SIPHeaderValue {
    /// Reads the Digest parameters of `auth`; throws for another scheme or a missing parameter.
    init(_ auth: SIPAuthHeader, header: String) throws(SIPParseError)
}

extension SIPDigestHeaderValue {
    public init(parsing text: String, header: String) throws(SIPParseError) {
        try self.init(try SIPAuthHeader(parsing: text, header: header), header: header)
    }
}

/// Reading and writing the Digest parameters common to challenges and credentials.
enum SIPDigestParameters {
    /// The parameters of a `Digest` header (not a token68), to read with ``take(_:from:)``.
    static func parameters(of auth: SIPAuthHeader, header: String) throws(SIPParseError) -> [SIPParameter] {
        guard auth.isDigest, auth.token68 == nil else { throw .invalidHeader(name: header) }
        return auth.parameters
    }

    /// Removes and returns the unquoted value of `name`.
    static func take(_ name: String, from parameters: inout [SIPParameter]) -> String? {
        guard let parameter = parameters.parameter(name) else { return nil }
        parameters.remove(name)
        return parameter.unquotedValue ?? ""
    }

    /// `name="value"` with quoted-pair escapes.
    static func quoted(_ name: String, _ value: String?) -> SIPParameter? {
        value.map { SIPParameter(name, SIPQuoting.quote($0)) }
    }

    /// `name=value` as a token (quoted when the value is not one, so it always parses back).
    static func token(_ name: String, _ value: String?) -> SIPParameter? {
        value.map { SIPCharacters.token.containsAll($0) ? SIPParameter(name, $0) : SIPParameter(name, SIPQuoting.quote($0)) }
    }

    /// The `true`/`false` flags (`stale`, `userhash`), case-insensitive (RFC 7616 §3.3).
    static func flag(_ value: String?) -> Bool { value.map { SIPCharacters.equalFold($0, "true") } ?? false }
}
