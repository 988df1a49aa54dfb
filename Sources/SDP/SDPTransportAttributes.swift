/// `a=fingerprint:<hash function> <hex bytes with colons>` (RFC 8122 §5): the DTLS certificate
/// fingerprint, e.g. `sha-256 0D:29:...:9D`.
public struct SDPFingerprint: Sendable, Hashable {
    /// The hash function name as written, e.g. `sha-256` (compare case-insensitively).
    public var hashFunction: String
    /// The digest bytes.
    public var bytes: [UInt8]

    /// Creates a fingerprint.
    public init(hashFunction: String, bytes: [UInt8]) {
        self.hashFunction = hashFunction
        self.bytes = bytes
    }

    /// Parses the value after `a=fingerprint:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value)
        guard f.count == 2, let bytes = Self.parseHex(f[1]) else { throw .invalidValue("fingerprint") }
        self.init(hashFunction: String(f[0]), bytes: bytes)
    }

    /// The digest as uppercase hex pairs joined by colons (RFC 8122 §5 `2UHEX *(":" 2UHEX)`).
    public var hexString: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3)
        for (i, byte) in bytes.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ":")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    var sdpValue: String { "\(hashFunction) \(hexString)" }

    /// Colon-separated pairs of hex digits; lowercase is accepted, as browsers do. At most 64
    /// bytes (SHA-512).
    private static func parseHex(_ text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8.count <= 64 * 3 - 1, (utf8.count + 1) % 3 == 0 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < utf8.count {
            guard let high = nibble(utf8[i]), let low = nibble(utf8[i + 1]) else { return nil }
            out.append(high << 4 | low)
            if i + 2 < utf8.count, utf8[i + 2] != UInt8(ascii: ":") { return nil }
            i += 3
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}

/// `a=setup` roles (RFC 4145 §4; RFC 8842 §3 for DTLS): offers use `actpass`, answers
/// `active` or `passive`.
public enum SDPSetupRole: String, Sendable, Hashable, CaseIterable {
    /// Will initiate the DTLS/TCP connection.
    case active
    /// Will accept the connection.
    case passive
    /// Either; the answerer chooses (RFC 8842 §5.2).
    case actpass
    /// Do not establish a connection for now.
    case holdconn
}

/// The media direction attributes (RFC 8866 §6.7); `sendrecv` is the default when none is given.
public enum SDPDirection: String, Sendable, Hashable, CaseIterable {
    /// `a=sendrecv`.
    case sendrecv
    /// `a=sendonly`.
    case sendonly
    /// `a=recvonly`.
    case recvonly
    /// `a=inactive`.
    case inactive

    /// Whether the writer of the description will send media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// Whether the writer of the description will receive media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }

    /// The direction as seen from the other side: `sendonly` becomes `recvonly` and vice versa.
    public var reversed: SDPDirection {
        switch self {
        case .sendonly: .recvonly
        case .recvonly: .sendonly
        default: self
        }
    }
}

/// `a=rtcp:<port> [<nettype> <addrtype> <address>]` (RFC 3605 §2.1); JSEP writes
/// `9 IN IP4 0.0.0.0` as a placeholder when RTCP is multiplexed.
public struct SDPRTCPAttribute: Sendable, Hashable {
    /// The RTCP port.
    public var port: UInt16
    /// The RTCP address, when given.
    public var connection: SDPConnection?

    /// Creates an rtcp attribute.
    public init(port: UInt16, connection: SDPConnection? = nil) {
        self.port = port
        self.connection = connection
    }

    /// Parses the value after `a=rtcp:`.
    public init(parsing value: String) throws(SDPParseError) { try self.init(value: Substring(value)) }

    init(value: Substring) throws(SDPParseError) {
        let f = SDPText.fields(value)
        guard f.count == 1 || f.count == 4, let port = SDPText.decimal(f[0], as: UInt16.self) else {
            throw .invalidValue("rtcp")
        }
        self.init(port: port, connection: f.count == 4 ? SDPConnection(fields: f[1...]) : nil)
    }

    var sdpValue: String { String(port) + (connection.map { " \($0.sdpValue)" } ?? "") }
}
