/// A `tel:` URI (RFC 3966 §3): a global number (`+` then digits, visual separators allowed) or a
/// local number with a `phone-context`, and parameters (`ext`, `isub`, `phone-context`, others),
/// held decoded.
public struct TelURI: Sendable, Hashable, CustomStringConvertible {
    /// The number as written, visual separators (`-`, `.`, `(`, `)`) included.
    public var number: String
    /// Parameters in order, decoded.
    public var parameters: [SIPParameter]

    public init(number: String, parameters: [SIPParameter] = []) {
        self.number = number
        self.parameters = parameters
    }

    /// Parses what follows `tel:`.
    init(rest: Substring) throws(SIPParseError) {
        var parts = rest.split(separator: ";", omittingEmptySubsequences: false)
        guard !parts.isEmpty else { throw .invalidURI }
        let number = parts.removeFirst()
        let isGlobal = number.utf8.first == UInt8(ascii: "+")
        let digits = isGlobal ? number.dropFirst() : number[...]
        let allowed = isGlobal ? Self.globalDigits : Self.localDigits
        // At least one digit (RFC 3966 §3 `global-number-digits`, `local-number-digits`).
        guard digits.utf8.allSatisfy(allowed.contains),
              digits.utf8.contains(where: { SIPCharacters.digit.contains($0) || (!isGlobal && SIPCharacters.hex.contains($0)) })
        else { throw .invalidURI }
        self.number = String(number)
        parameters = try parts.map { part throws(SIPParseError) in
            let equals = part.utf8.firstIndex(of: UInt8(ascii: "="))
            let nameText = equals.map { part[..<$0] } ?? part
            guard SIPCharacters.token.containsAll(nameText) else { throw .invalidURI }
            guard let equals else { return SIPParameter(String(nameText)) }
            let valueText = part[part.utf8.index(after: equals)...]
            guard !valueText.isEmpty, let value = SIPEscaping.decode(valueText, allowed: SIPCharacters.parameter) else {
                throw .invalidURI
            }
            return SIPParameter(String(nameText), value)
        }
        // A local number must say where it is valid (RFC 3966 §5.1.5).
        guard isGlobal || parameters.contains("phone-context") else { throw .invalidURI }
    }

    /// Whether the number is global (`+` and a country code).
    public var isGlobal: Bool { number.utf8.first == UInt8(ascii: "+") }

    /// The number without visual separators, e.g. `+12015550123` (RFC 3966 §4 compares these).
    public var digits: String {
        String(decoding: number.utf8.filter { !Self.visualSeparators.contains($0) }, as: UTF8.self)
    }

    /// The `ext` parameter.
    public var extensionNumber: String? { parameters.value("ext") }
    /// The `phone-context` parameter.
    public var phoneContext: String? { parameters.value("phone-context") }

    public var description: String {
        var out = "tel:" + number
        for parameter in parameters {
            out += ";" + parameter.name
            if let value = parameter.value { out += "=" + SIPEscaping.encode(value, allowed: SIPCharacters.parameter) }
        }
        return out
    }

    private static let visualSeparators = SIPCharacters.Set("-.()", alphanumerics: false)
    private static let globalDigits = SIPCharacters.Set("0123456789-.()", alphanumerics: false)
    private static let localDigits = SIPCharacters.Set("0123456789ABCDEFabcdef*#-.()", alphanumerics: false)
}

/// Any URI a SIP message carries: `sip`/`sips`, `tel`, or another scheme kept as text
/// (RFC 3261 §25.1 `absoluteURI`; RFC 4475 §3.3.2 shows a Request-URI a proxy answers with 416).
public enum SIPAnyURI: Sendable, Hashable, CustomStringConvertible {
    case sip(SIPURI)
    case tel(TelURI)
    /// Another scheme (lowercased) and the text after its `:`.
    case other(scheme: String, value: String)

    /// Parses `scheme:…`; `sip`, `sips` and `tel` are decoded, others kept as text.
    public init(parsing text: some StringProtocol) throws(SIPParseError) {
        let text = Substring(text)
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { throw .invalidURI }
        let schemeText = text[..<colon]
        let rest = text[text.utf8.index(after: colon)...]
        guard let first = schemeText.utf8.first, (first | 0x20) >= 0x61, (first | 0x20) <= 0x7A,
              Self.schemeCharacters.containsAll(schemeText) else { throw .invalidURI }
        let scheme = SIPCharacters.lowercased(schemeText)
        switch scheme {
        case "sip", "sips": self = .sip(try SIPURI(secure: scheme == "sips", rest: rest))
        case "tel": self = .tel(try TelURI(rest: rest))
        default:
            guard SIPCharacters.uric.containsAll(rest) else { throw .invalidURI }
            self = .other(scheme: scheme, value: String(rest))
        }
    }

    /// The SIP or SIPS URI, if this is one.
    public var sipURI: SIPURI? {
        if case .sip(let uri) = self { uri } else { nil }
    }

    /// The scheme, lowercased.
    public var scheme: String {
        switch self {
        case .sip(let uri): uri.isSecure ? "sips" : "sip"
        case .tel: "tel"
        case .other(let scheme, _): scheme
        }
    }

    public var description: String {
        switch self {
        case .sip(let uri): uri.description
        case .tel(let uri): uri.description
        case .other(let scheme, let value): "\(scheme):\(value)"
        }
    }

    private static let schemeCharacters = SIPCharacters.Set("+-.")
}
