import STUN

/// An IP address and UDP/TCP port: where a candidate lives or a datagram came from.
///
/// A small `Hashable` value (the IP is held as integers, not text), so it keys dictionaries on
/// the packet path. Convert to and from STUN's `STUNAddress` with `init(_:)` and `stunAddress`.
public struct ICETransportAddress: Sendable, Hashable, CustomStringConvertible {
    public var ip: STUNAddress.IP
    public var port: UInt16

    public init(ip: STUNAddress.IP, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// From IP text (`"192.0.2.1"`, `"2001:db8::1"`, `"::ffff:192.0.2.1"`, an IPv6 zone such as
    /// `"fe80::1%eth0"` is dropped) and a port; nil if the text is not an IP address.
    public init?(_ ipText: some StringProtocol, port: UInt16) {
        guard let ip = IPText.parse(String(ipText)) else { return nil }
        self.init(ip: ip, port: port)
    }

    /// From 4 or 16 address bytes in network order; nil for any other count.
    public init?(ipBytes: some Collection<UInt8>, port: UInt16) {
        guard let ip = STUNAddress.IP(bytes: ipBytes) else { return nil }
        self.init(ip: ip, port: port)
    }

    public init(_ address: STUNAddress) { self.init(ip: address.ip, port: address.port) }

    /// The same address as STUN carries it.
    public var stunAddress: STUNAddress { STUNAddress(ip: ip, port: port) }

    /// The IP as text: dotted quad or RFC 5952 IPv6.
    public var ipString: String { ip.description }

    public var isIPv4: Bool { if case .v4 = ip { true } else { false } }

    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        switch ip {
        case .v4(let a): a >> 24 == 127
        case .v6(let high, let low): high == 0 && low == 1
        }
    }

    /// True when both addresses are IPv4 or both IPv6: only such candidates pair (RFC 8445 §6.1.2.2).
    public func isSameFamily(as other: ICETransportAddress) -> Bool { isIPv4 == other.isIPv4 }

    /// `192.0.2.1:3478` or `[2001:db8::1]:3478`.
    public var description: String { stunAddress.description }
}

/// Parses IPv4 dotted quads and IPv6 text (RFC 4291 §2.2) without Foundation or libc.
enum IPText {
    static func parse(_ text: String) -> STUNAddress.IP? {
        var s = Substring(text)
        if s.hasPrefix("["), s.hasSuffix("]") { s = s.dropFirst().dropLast() }
        if let zone = s.firstIndex(of: "%") { s = s[..<zone] }
        if s.contains(":") { return parseV6(s) }
        guard let v4 = parseV4(s) else { return nil }
        return .v4(v4)
    }

    static func parseV4(_ s: Substring) -> UInt32? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let octet = UInt8(part) else { return nil }
            value = value << 8 | UInt32(octet)
        }
        return value
    }

    static func parseV6(_ s: Substring) -> STUNAddress.IP? {
        var groups: [UInt16] = []
        var tailStart: Int?
        var halves = [s]
        if let gap = s.firstRange(of: "::") {
            halves = [s[..<gap.lowerBound], s[gap.upperBound...]]
            guard halves[1].firstRange(of: "::") == nil else { return nil }
        }
        for (index, half) in halves.enumerated() {
            if index == 1 { tailStart = groups.count }
            guard !half.isEmpty else { continue }
            let fields = half.split(separator: ":", omittingEmptySubsequences: false)
            for (i, field) in fields.enumerated() {
                if field.contains(".") {
                    // An embedded IPv4 address may only be the last field (RFC 4291 §2.2 form 3).
                    guard i == fields.count - 1, index == halves.count - 1, let v4 = parseV4(field) else { return nil }
                    groups.append(UInt16(truncatingIfNeeded: v4 >> 16))
                    groups.append(UInt16(truncatingIfNeeded: v4))
                } else {
                    guard (1...4).contains(field.count), let g = UInt16(field, radix: 16) else { return nil }
                    groups.append(g)
                }
            }
        }
        if let tailStart {
            guard groups.count < 8 else { return nil }
            groups.insert(contentsOf: repeatElement(0, count: 8 - groups.count), at: tailStart)
        }
        guard groups.count == 8 else { return nil }
        let bytes = groups.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
        return STUNAddress.IP(bytes: bytes)
    }
}
