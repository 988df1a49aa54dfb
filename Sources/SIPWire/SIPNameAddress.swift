/// A `name-addr` or `addr-spec` with header parameters: From, To, Contact, Route, Record-Route,
/// Reply-To, Refer-To, Referred-By, P-Asserted-Identity (RFC 3261 §20, §25.1).
///
/// In `"Bob" <sip:bob@x>;tag=1` and `sip:bob@x;tag=1` alike the `tag` belongs to the header,
/// not the URI: an addr-spec ends at the first `;` (RFC 3261 §20.10). Written back, the value
/// is always a name-addr, which means the same and never needs the addr-spec exceptions.
public struct SIPNameAddress: SIPHeaderValue, CustomStringConvertible {
    /// The display name, unquoted; nil when absent.
    public var displayName: String?
    public var uri: SIPAnyURI
    /// Header parameters (tag, expires, q, +sip.instance, reg-id, …) as received.
    public var parameters: [SIPParameter]

    public init(displayName: String? = nil, uri: SIPAnyURI, parameters: [SIPParameter] = []) {
        self.displayName = displayName
        self.uri = uri
        self.parameters = parameters
    }

    public init(displayName: String? = nil, uri: SIPURI, parameters: [SIPParameter] = []) {
        self.init(displayName: displayName, uri: .sip(uri), parameters: parameters)
    }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        if scanner.peek == UInt8(ascii: "\"") {
            guard let name = scanner.quotedString() else { throw .invalidHeader(name: header) }
            displayName = name
            scanner.skipWhitespace()
            uri = try Self.bracketedURI(&scanner, header: header)
        } else if scanner.peek == UInt8(ascii: "<") {
            uri = try Self.bracketedURI(&scanner, header: header)
        } else {
            let start = scanner.index
            if scanner.token() != nil, scanner.peek == UInt8(ascii: ":") {
                // An addr-spec: a scheme is never followed by whitespace; the URI ends at `;`,
                // `,` or whitespace, and one holding `?` needs brackets (RFC 4475 §3.1.2.13).
                var bare = SIPScanner(String(decoding: scanner.bytes[start...], as: UTF8.self))
                let uriText = bare.until(UInt8(ascii: ";"), UInt8(ascii: ","), 0x20, 0x09)
                guard !uriText.utf8.contains(UInt8(ascii: "?")) else { throw .invalidHeader(name: header) }
                do { uri = try SIPAnyURI(parsing: uriText) } catch { throw .invalidHeader(name: header) }
                scanner = bare
            } else {
                // `*(token LWS)` then `<`; kept with single spaces between tokens.
                var words: [String] = []
                var scan = SIPScanner(String(decoding: scanner.bytes[start...], as: UTF8.self))
                while let word = scan.token() {
                    words.append(word)
                    scan.skipWhitespace()
                }
                guard !words.isEmpty, scan.peek == UInt8(ascii: "<") else { throw .invalidHeader(name: header) }
                displayName = words.joined(separator: " ")
                uri = try Self.bracketedURI(&scan, header: header)
                scanner = scan
            }
        }
        parameters = try scanner.headerParameters(header: header)
        guard scanner.isAtEnd else { throw .invalidHeader(name: header) }
    }

    /// `"<" addr-spec ">"` with nothing between the brackets and the URI (RFC 4475 §3.1.2.14).
    private static func bracketedURI(_ scanner: inout SIPScanner, header: String) throws(SIPParseError) -> SIPAnyURI {
        guard scanner.consume(UInt8(ascii: "<")) else { throw .invalidHeader(name: header) }
        let text = scanner.until(UInt8(ascii: ">"))
        guard scanner.consume(UInt8(ascii: ">")) else { throw .invalidHeader(name: header) }
        do { return try SIPAnyURI(parsing: text) } catch { throw .invalidHeader(name: header) }
    }

    /// `"Display" <uri>;params` (display name quoted), or `<uri>;params`.
    public var headerValue: String {
        (displayName.map { SIPQuoting.quote($0) + " " } ?? "") + "<\(uri)>" + parameters.headerText
    }

    public var description: String { headerValue }

    /// The `tag` parameter (From/To, RFC 3261 §19.3).
    public var tag: String? {
        get { parameters.value("tag") }
        set { if let newValue { parameters.set("tag", newValue) } else { parameters.remove("tag") } }
    }

    /// The `expires` parameter of a Contact (RFC 3261 §20.10), nil when absent or malformed
    /// (a registrar then applies its default, as RFC 4475 §3.1.2.4 suggests).
    public var expires: UInt32? { parameters.value("expires").flatMap { SIPCharacters.decimal($0, as: UInt32.self) } }

    /// The `q` parameter of a Contact (`qvalue`, 0 to 1 with up to three decimals, RFC 3261 §25.1).
    public var q: Double? {
        guard let text = parameters.value("q"), let value = Self.qvalue(text) else { return nil }
        return value
    }

    /// The `+sip.instance` value of a Contact (RFC 5626 §4.1) without its quotes and brackets,
    /// e.g. `urn:uuid:00000000-0000-1000-8000-000A95A0E128`.
    public var instanceID: String? {
        guard var value = parameters.value("+sip.instance") else { return nil }
        if value.hasPrefix("<"), value.hasSuffix(">"), value.utf8.count >= 2 { value = String(value.dropFirst().dropLast()) }
        return value
    }

    /// The `reg-id` of a Contact (RFC 5626 §4.2): 1 to 2^31-1.
    public var regID: UInt32? {
        parameters.value("reg-id").flatMap { SIPCharacters.decimal($0, as: UInt32.self) }.flatMap { $0 >= 1 && $0 < 1 << 31 ? $0 : nil }
    }

    /// `qvalue` = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
    static func qvalue(_ text: String) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.utf8.count <= 3, fraction.utf8.allSatisfy(SIPCharacters.digit.contains),
              whole == "0" || fraction.utf8.allSatisfy({ $0 == UInt8(ascii: "0") }) else { return nil }
        let thousandths = (SIPCharacters.decimal(fraction + String(repeating: "0", count: 3 - fraction.utf8.count), as: UInt16.self) ?? 0)
        return whole == "1" ? 1 : Double(thousandths) / 1000
    }
}

/// One Contact element (RFC 3261 §20.10): `*` (only in a REGISTER that removes every binding,
/// §10.2.2) or an address with parameters.
public enum SIPContact: SIPHeaderValue, CustomStringConvertible {
    case wildcard
    case address(SIPNameAddress)

    public init(parsing text: String, header: String) throws(SIPParseError) {
        if text == "*" {
            self = .wildcard
        } else {
            self = .address(try SIPNameAddress(parsing: text, header: header))
        }
    }

    /// The address, nil for `*`.
    public var address: SIPNameAddress? {
        if case .address(let address) = self { address } else { nil }
    }

    public var headerValue: String {
        switch self {
        case .wildcard: "*"
        case .address(let address): address.headerValue
        }
    }

    public var description: String { headerValue }
}
