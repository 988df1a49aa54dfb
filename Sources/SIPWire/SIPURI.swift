/// A `sip:` or `sips:` URI (RFC 3261 §19.1). User, password, parameters and headers are held
/// decoded (RFC 3261 §19.1.4 compares them unescaped); ``description`` escapes them again, so a
/// URI serializes to text that parses back to an equal value.
public struct SIPURI: Sendable, Hashable, CustomStringConvertible {
    /// `sips` (RFC 3261 §19.1) rather than `sip`.
    public var isSecure: Bool
    /// The user (or telephone-subscriber), decoded; nil when the URI has no userinfo.
    public var user: String?
    /// The password, decoded (RFC 3261 §19.1.1 discourages it, but it parses).
    public var password: String?
    public var host: SIPHost
    public var port: UInt16?
    /// URI parameters in order (transport, user, method, ttl, maddr, lr and others), decoded.
    public var parameters: [SIPParameter]
    /// URI headers (`?name=value&…`) in order, decoded.
    public var headers: [SIPParameter]

    public init(isSecure: Bool = false, user: String? = nil, password: String? = nil, host: SIPHost, port: UInt16? = nil,
                parameters: [SIPParameter] = [], headers: [SIPParameter] = []) {
        self.isSecure = isSecure
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.parameters = parameters
        self.headers = headers
    }

    /// Parses `sip:…` or `sips:…` (scheme case-insensitive).
    public init(parsing text: some StringProtocol) throws(SIPParseError) {
        guard case .sip(let uri) = try SIPAnyURI(parsing: text) else { throw .invalidURI }
        self = uri
    }

    /// Parses what follows `sip:` or `sips:`.
    init(secure: Bool, rest: Substring) throws(SIPParseError) {
        isSecure = secure
        var remainder = rest
        // `@` occurs in no component but userinfo's end (it is escaped everywhere else).
        if let at = remainder.utf8.firstIndex(of: UInt8(ascii: "@")) {
            let userinfo = remainder[..<at]
            remainder = remainder[remainder.utf8.index(after: at)...]
            let colon = userinfo.utf8.firstIndex(of: UInt8(ascii: ":"))
            let userText = colon.map { userinfo[..<$0] } ?? userinfo
            guard !userText.isEmpty, let user = SIPEscaping.decode(userText, allowed: SIPCharacters.user) else { throw .invalidURI }
            self.user = user
            if let colon {
                guard let password = SIPEscaping.decode(userinfo[userinfo.utf8.index(after: colon)...],
                                                        allowed: SIPCharacters.password) else { throw .invalidURI }
                self.password = password
            }
        }
        var headerText: Substring?
        if let question = remainder.utf8.firstIndex(of: UInt8(ascii: "?")) {
            headerText = remainder[remainder.utf8.index(after: question)...]
            remainder = remainder[..<question]
        }
        var parts = remainder.split(separator: ";", omittingEmptySubsequences: false)
        guard !parts.isEmpty else { throw .invalidURI }
        (host, port) = try Self.hostPort(parts.removeFirst())
        parameters = try parts.map { part throws(SIPParseError) in try Self.pair(part, allowed: SIPCharacters.parameter, valueRequired: false) }
        headers = []
        if let headerText {
            headers = try headerText.split(separator: "&", omittingEmptySubsequences: false).map { part throws(SIPParseError) in
                try Self.pair(part, allowed: SIPCharacters.header, valueRequired: true)
            }
        }
    }

    /// `host [":" port]`, with the host an IPv6 reference, IPv4 address or hostname.
    static func hostPort(_ text: Substring) throws(SIPParseError) -> (SIPHost, UInt16?) {
        var hostText = text
        var portText: Substring?
        if text.utf8.first == UInt8(ascii: "[") {
            guard let close = text.utf8.firstIndex(of: UInt8(ascii: "]")) else { throw .invalidURI }
            let afterClose = text.utf8.index(after: close)
            hostText = text[..<afterClose]
            let tail = text[afterClose...]
            if !tail.isEmpty {
                guard tail.utf8.first == UInt8(ascii: ":") else { throw .invalidURI }
                portText = tail.dropFirst()
            }
        } else if let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) {
            hostText = text[..<colon]
            portText = text[text.utf8.index(after: colon)...]
        }
        guard let host = SIPHost(parsing: hostText) else { throw .invalidURI }
        guard let portText else { return (host, nil) }
        guard let port = SIPCharacters.decimal(portText, as: UInt16.self) else { throw .invalidURI }
        return (host, port)
    }

    /// `name[=value]` decoded with the characters `allowed` literally.
    private static func pair(_ text: Substring, allowed: SIPCharacters.Set, valueRequired: Bool) throws(SIPParseError) -> SIPParameter {
        let equals = text.utf8.firstIndex(of: UInt8(ascii: "="))
        let nameText = equals.map { text[..<$0] } ?? text
        guard !nameText.isEmpty, let name = SIPEscaping.decode(nameText, allowed: allowed) else { throw .invalidURI }
        guard let equals else {
            guard !valueRequired else { throw .invalidURI }
            return SIPParameter(name)
        }
        let valueText = text[text.utf8.index(after: equals)...]
        // A URI parameter value is 1*paramchar; a header value may be empty (RFC 3261 §25.1).
        guard valueRequired || !valueText.isEmpty, let value = SIPEscaping.decode(valueText, allowed: allowed) else {
            throw .invalidURI
        }
        return SIPParameter(name, value)
    }

    /// The URI text, escaping what each component's grammar does not allow literally.
    public var description: String {
        var out = isSecure ? "sips:" : "sip:"
        if let user {
            out += SIPEscaping.encode(user, allowed: SIPCharacters.user)
            if let password { out += ":" + SIPEscaping.encode(password, allowed: SIPCharacters.password) }
            out += "@"
        }
        out += host.description
        if let port { out += ":\(port)" }
        for parameter in parameters {
            out += ";" + SIPEscaping.encode(parameter.name, allowed: SIPCharacters.parameter)
            if let value = parameter.value { out += "=" + SIPEscaping.encode(value, allowed: SIPCharacters.parameter) }
        }
        for (i, header) in headers.enumerated() {
            out += (i == 0 ? "?" : "&") + SIPEscaping.encode(header.name, allowed: SIPCharacters.header)
            out += "=" + SIPEscaping.encode(header.value ?? "", allowed: SIPCharacters.header)
        }
        return out
    }

    /// `transport` parameter, lowercased (e.g. `udp`, `tcp`, `tls`, `ws`).
    public var transport: String? { parameters.value("transport").map(SIPCharacters.lowercased) }
    /// `user` parameter (`phone`, `ip`, RFC 3261 §19.1.1).
    public var userParameter: String? { parameters.value("user") }
    /// `maddr` parameter.
    public var maddr: String? { parameters.value("maddr") }
    /// `ttl` parameter (0…255).
    public var ttl: UInt8? { parameters.value("ttl").flatMap { SIPCharacters.decimal($0, as: UInt8.self) } }
    /// `method` parameter.
    public var method: String? { parameters.value("method") }
    /// Whether the `lr` (loose routing, RFC 3261 §19.1.1) flag is present.
    public var isLooseRouting: Bool { parameters.contains("lr") }

    /// URI equality of RFC 3261 §19.1.4: scheme, user and password case-sensitive; host
    /// case-insensitive; `user`, `ttl`, `method`, `maddr` and `transport` must match when either
    /// side has them; other parameters must match when both have them; headers must match.
    public func isEquivalent(to other: SIPURI) -> Bool {
        guard isSecure == other.isSecure, user == other.user, password == other.password,
              host.isEquivalent(to: other.host), port == other.port else { return false }
        for name in ["user", "ttl", "method", "maddr", "transport"] {
            guard Self.sameValue(parameters.parameter(name), other.parameters.parameter(name)) else { return false }
        }
        for parameter in parameters {
            guard let theirs = other.parameters.parameter(parameter.name) else { continue }
            guard Self.sameValue(parameter, theirs) else { return false }
        }
        guard headers.count == other.headers.count else { return false }
        return headers.allSatisfy { header in
            other.headers.contains { SIPCharacters.equalFold($0.name, header.name) && $0.value == header.value }
        }
    }

    private static func sameValue(_ a: SIPParameter?, _ b: SIPParameter?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.value.map(SIPCharacters.lowercased) == b.value.map(SIPCharacters.lowercased)
        default: false
        }
    }
}
