import SIPWire

/// Fresh identifiers for requests and dialogs, from a random source passed in (tests) or the
/// system's.
public enum SIPIdentifiers {
    /// RFC 3261's magic cookie, the start of every branch it defines (§8.1.1.7).
    public static let branchCookie = "z9hG4bK"

    /// A tag for From or To: 64 random bits in base 36 (RFC 3261 §19.3 asks for at least 32).
    public static func tag(using generator: inout some RandomNumberGenerator) -> String {
        String(generator.next() as UInt64, radix: 36)
    }

    public static func tag() -> String {
        var generator = SystemRandomNumberGenerator()
        return tag(using: &generator)
    }

    /// A Via branch: the magic cookie and 64 random bits, unique per transaction (§8.1.1.7).
    public static func branch(using generator: inout some RandomNumberGenerator) -> String {
        branchCookie + String(generator.next() as UInt64, radix: 36)
    }

    public static func branch() -> String {
        var generator = SystemRandomNumberGenerator()
        return branch(using: &generator)
    }

    /// A Call-ID (RFC 3261 §8.1.1.4): 128 random bits in hex, `@host` appended when given.
    public static func callID(host: String? = nil, using generator: inout some RandomNumberGenerator) -> String {
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        let hex = hex16(high) + hex16(low)
        return host.map { hex + "@" + $0 } ?? hex
    }

    public static func callID(host: String? = nil) -> String {
        var generator = SystemRandomNumberGenerator()
        return callID(host: host, using: &generator)
    }

    private static func hex16(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.utf8.count) + text
    }
}

/// Where our requests are sent from, for their Via (RFC 3261 §8.1.1.7, §18.1.1): the transport
/// and the sent-by host and port, with RFC 3581's `rport` asked for by default.
public struct SIPSentBy: Sendable, Hashable {
    /// `UDP`, `TCP`, `TLS`, `WS`, `WSS`.
    public var transport: String
    public var host: SIPHost
    public var port: UInt16?
    /// Adds `;rport` (RFC 3581 §3) so responses come back through a NAT.
    public var requestsRPort: Bool

    public init(transport: String, host: SIPHost, port: UInt16? = nil, requestsRPort: Bool = true) {
        self.transport = transport
        self.host = host
        self.port = port
        self.requestsRPort = requestsRPort
    }

    /// The Via with `branch`.
    public func via(branch: String) -> SIPVia {
        var via = SIPVia(transport: transport, host: host, port: port, branch: branch)
        if requestsRPort { via.rport = .requested }
        return via
    }
}
