/// An IP address and port as carried by MAPPED-ADDRESS, XOR-MAPPED-ADDRESS, ALTERNATE-SERVER and
/// the TURN XOR-PEER-ADDRESS / XOR-RELAYED-ADDRESS attributes (RFC 8489 §14.1–14.2).
public struct STUNAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 or IPv6 address held as big-endian integers.
    public enum IP: Sendable, Hashable, CustomStringConvertible {
        case v4(UInt32)
        case v6(high: UInt64, low: UInt64)

        /// From 4 or 16 bytes in network order; nil for any other count.
        public init?(bytes: some Collection<UInt8>) {
            switch bytes.count {
            case 4:
                self = .v4(bytes.reduce(0) { $0 << 8 | UInt32($1) })
            case 16:
                var high: UInt64 = 0
                var low: UInt64 = 0
                for (i, b) in bytes.enumerated() {
                    if i < 8 { high = high << 8 | UInt64(b) } else { low = low << 8 | UInt64(b) }
                }
                self = .v6(high: high, low: low)
            default:
                return nil
            }
        }

        /// The address in network order: 4 or 16 bytes.
        public var bytes: [UInt8] {
            switch self {
            case .v4(let a):
                return (0..<4).map { UInt8(truncatingIfNeeded: a >> UInt32(24 - 8 * $0)) }
            case .v6(let high, let low):
                return [high, low].flatMap { half in (0..<8).map { UInt8(truncatingIfNeeded: half >> UInt64(56 - 8 * $0)) } }
            }
        }

        /// The STUN address family (RFC 8489 §14.1).
        public var family: STUNAddressFamily {
            switch self {
            case .v4: .ipv4
            case .v6: .ipv6
            }
        }

        /// Dotted quad, or RFC 5952 text for IPv6 (lowercase, longest zero run compressed).
        public var description: String {
            switch self {
            case .v4:
                return bytes.map { String($0) }.joined(separator: ".")
            case .v6:
                let b = bytes
                let groups = (0..<8).map { UInt16(b[2 * $0]) << 8 | UInt16(b[2 * $0 + 1]) }
                var best = (start: -1, count: 0)
                var i = 0
                while i < 8 {
                    guard groups[i] == 0 else { i += 1; continue }
                    var j = i
                    while j < 8 && groups[j] == 0 { j += 1 }
                    if j - i > best.count && j - i > 1 { best = (i, j - i) }
                    i = j
                }
                let hex = groups.map { String($0, radix: 16) }
                guard best.start >= 0 else { return hex.joined(separator: ":") }
                let head = hex[..<best.start].joined(separator: ":")
                let tail = hex[(best.start + best.count)...].joined(separator: ":")
                return head + "::" + tail
            }
        }
    }

    public var ip: IP
    public var port: UInt16

    public init(ip: IP, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// `1.2.3.4:5` or `[2001:db8::1]:5`.
    public var description: String {
        switch ip {
        case .v4: "\(ip):\(port)"
        case .v6: "[\(ip)]:\(port)"
        }
    }
}

/// An address family number (RFC 8489 §14.1; RFC 8656 §18.6 REQUESTED-ADDRESS-FAMILY).
///
/// A struct rather than an enum so a TURN server can see, and answer 440 to, families it does not
/// support.
public struct STUNAddressFamily: RawRepresentable, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ipv4 = STUNAddressFamily(rawValue: 0x01)
    public static let ipv6 = STUNAddressFamily(rawValue: 0x02)
}
