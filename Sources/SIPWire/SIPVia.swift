/// One Via element (RFC 3261 §20.42, §25.1 `via-parm`): `SIP/2.0/UDP host:port;branch=…`,
/// with `received` and RFC 3581's `rport` (with or without a value).
public struct SIPVia: SIPHeaderValue, CustomStringConvertible {
    /// `rport` (RFC 3581 §3): a client's request for it, or the port a server filled in (§4).
    public enum RPort: Sendable, Hashable {
        case requested
        case port(UInt16)
    }

    /// Usually `SIP`.
    public var protocolName: String
    /// Usually `2.0`.
    public var protocolVersion: String
    /// The transport as received (`UDP`, `TCP`, `TLS`, `SCTP`, `WS`, `WSS` or another token).
    public var transport: String
    public var host: SIPHost
    public var port: UInt16?
    /// Parameters in order (branch, received, rport, maddr, ttl, others), as received.
    public var parameters: [SIPParameter]

    public init(transport: String, host: SIPHost, port: UInt16? = nil, branch: String? = nil, parameters: [SIPParameter] = []) {
        protocolName = "SIP"
        protocolVersion = "2.0"
        self.transport = transport
        self.host = host
        self.port = port
        self.parameters = parameters
        if let branch { self.parameters.set("branch", branch) }
    }

    public init(parsing text: String, header: String) throws(SIPParseError) {
        var scanner = SIPScanner(text)
        scanner.skipWhitespace()
        guard let name = scanner.token(), scanner.separator(UInt8(ascii: "/")), let version = scanner.token(),
              scanner.separator(UInt8(ascii: "/")), let transport = scanner.token() else { throw .invalidHeader(name: header) }
        protocolName = name
        protocolVersion = version
        self.transport = transport
        scanner.skipWhitespace()
        let hostText: String?
        if scanner.peek == UInt8(ascii: "[") {
            let inner = scanner.until(UInt8(ascii: "]"))
            hostText = scanner.consume(UInt8(ascii: "]")) ? inner + "]" : nil
        } else {
            hostText = scanner.run(SIPCharacters.hostname)
        }
        guard let hostText, let host = SIPHost(parsing: hostText) else { throw .invalidHeader(name: header) }
        self.host = host
        if scanner.separator(UInt8(ascii: ":")) {
            guard let digits = scanner.run(SIPCharacters.digit), let port = SIPCharacters.decimal(digits, as: UInt16.self) else {
                throw .invalidHeader(name: header)
            }
            self.port = port
        }
        parameters = try scanner.headerParameters(header: header)
        guard scanner.isAtEnd, Self.validParameters(parameters) else { throw .invalidHeader(name: header) }
    }

    /// branch and maddr need values, received an address, ttl 0…255, rport nothing or a port.
    private static func validParameters(_ parameters: [SIPParameter]) -> Bool {
        for parameter in parameters {
            switch SIPCharacters.lowercased(parameter.name) {
            case "branch", "maddr":
                guard let value = parameter.value, !value.hasPrefix("\"") else { return false }
            case "received":
                guard let value = parameter.value, receivedHost(value) != nil else { return false }
            case "ttl":
                guard parameter.value.flatMap({ SIPCharacters.decimal($0, as: UInt8.self) }) != nil else { return false }
            case "rport":
                if let value = parameter.value, SIPCharacters.decimal(value, as: UInt16.self) == nil { return false }
            default: break
            }
        }
        return true
    }

    /// `received` = IPv4address / IPv6address (RFC 3261 §25.1); a bracketed IPv6 reference is
    /// accepted too (RFC 5118 §4.5).
    private static func receivedHost(_ value: String) -> SIPHost? {
        if SIPHost.isIPv6(value) { return .ipv6(value) }
        switch SIPHost(parsing: value) {
        case .ipv4(let address)?: return .ipv4(address)
        case .ipv6(let address)?: return .ipv6(address)
        default: return nil
        }
    }

    public var headerValue: String {
        "\(protocolName)/\(protocolVersion)/\(transport) \(host)" + (port.map { ":\($0)" } ?? "") + parameters.headerText
    }

    public var description: String { headerValue }

    /// The `branch` parameter (the transaction identifier, RFC 3261 §17.2.3).
    public var branch: String? {
        get { parameters.value("branch") }
        set { if let newValue { parameters.set("branch", newValue) } else { parameters.remove("branch") } }
    }

    /// Whether the branch starts with RFC 3261's magic cookie `z9hG4bK` and has something after
    /// it (RFC 4475 §3.2.1: the cookie alone identifies no transaction).
    public var hasRFC3261Branch: Bool {
        guard let branch else { return false }
        return branch.utf8.count > 7 && branch.hasPrefix("z9hG4bK")
    }

    /// The `received` address (RFC 3261 §18.2.1).
    public var received: SIPHost? {
        get { parameters.value("received").flatMap(Self.receivedHost) }
        set { if let newValue { parameters.set("received", newValue.address) } else { parameters.remove("received") } }
    }

    /// `rport` (RFC 3581): nil when absent.
    public var rport: RPort? {
        get {
            guard let parameter = parameters.parameter("rport") else { return nil }
            guard let value = parameter.value else { return .requested }
            return SIPCharacters.decimal(value, as: UInt16.self).map(RPort.port)
        }
        set {
            switch newValue {
            case nil: parameters.remove("rport")
            case .requested: parameters.set("rport", nil)
            case .port(let port): parameters.set("rport", String(port))
            }
        }
    }

    /// The `maddr` parameter.
    public var maddr: String? { parameters.value("maddr") }
    /// The `ttl` parameter.
    public var ttl: UInt8? { parameters.value("ttl").flatMap { SIPCharacters.decimal($0, as: UInt8.self) } }

    /// The port a response goes to when there is no rport (RFC 3261 §18.2.2): the sent-by port,
    /// or 5061 for TLS and 5060 otherwise.
    public var sentByPort: UInt16 { port ?? (SIPCharacters.equalFold(transport, "TLS") ? 5061 : 5060) }
}
