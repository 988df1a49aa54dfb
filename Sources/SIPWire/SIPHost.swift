/// The `host` of a SIP URI or Via sent-by (RFC 3261 §25.1): a hostname, an IPv4 address, or an
/// IPv6 reference written in brackets (RFC 5118 §4).
public enum SIPHost: Sendable, Hashable, CustomStringConvertible {
    /// A domain name, as received (compare with ``isEquivalent(to:)``: hostnames are case-insensitive).
    case hostname(String)
    /// A dotted-quad IPv4 address.
    case ipv4(String)
    /// An IPv6 address without its brackets.
    case ipv6(String)

    /// Parses a host: `[IPv6]`, a dotted quad, or a hostname. Nil when it matches none.
    public init?(parsing text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        if utf8.first == UInt8(ascii: "[") {
            guard utf8.count > 2, utf8.last == UInt8(ascii: "]") else { return nil }
            let inner = String(decoding: utf8[1..<(utf8.count - 1)], as: UTF8.self)
            guard Self.isIPv6(inner) else { return nil }
            self = .ipv6(inner)
        } else if Self.isIPv4(utf8[...]) {
            self = .ipv4(String(text))
        } else if Self.isHostname(utf8) {
            self = .hostname(String(text))
        } else {
            return nil
        }
    }

    /// The host as written in a URI or Via: IPv6 in brackets.
    public var description: String {
        switch self {
        case .hostname(let name): name
        case .ipv4(let address): address
        case .ipv6(let address): "[\(address)]"
        }
    }

    /// The address or name without brackets, e.g. for a socket address.
    public var address: String {
        switch self {
        case .hostname(let s), .ipv4(let s), .ipv6(let s): s
        }
    }

    /// Host comparison of RFC 3261 §19.1.4: case-insensitive names; IPv6 by value.
    public func isEquivalent(to other: SIPHost) -> Bool {
        switch (self, other) {
        case (.hostname(let a), .hostname(let b)): SIPCharacters.equalFold(a, b)
        case (.ipv4(let a), .ipv4(let b)): a == b
        case (.ipv6(let a), .ipv6(let b)): Self.ipv6Groups(a) == Self.ipv6Groups(b)
        default: false
        }
    }

    /// `IPv4address` = 1*3DIGIT "." 1*3DIGIT "." 1*3DIGIT "." 1*3DIGIT, each at most 255.
    static func isIPv4(_ bytes: ArraySlice<UInt8>) -> Bool {
        var parts = 1, digits = 0, value = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, parts < 4 else { return false }
                (parts, digits, value) = (parts + 1, 0, 0)
            } else {
                guard SIPCharacters.digit.contains(byte), digits < 3 else { return false }
                (digits, value) = (digits + 1, value * 10 + Int(byte - UInt8(ascii: "0")))
                guard value <= 255 else { return false }
            }
        }
        return parts == 4 && digits > 0
    }

    /// `hostname` = *( domainlabel "." ) toplabel [ "." ] (RFC 3261 §25.1): labels of alphanumerics
    /// and inner hyphens; the top label starts with a letter. Names over 255 bytes are refused.
    static func isHostname(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        var labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if labels.last?.isEmpty == true, labels.count > 1 { labels.removeLast() }
        for (i, label) in labels.enumerated() {
            guard let first = label.first, let last = label.last, label.count <= 63,
                  label.allSatisfy({ SIPCharacters.token.contains($0) && ($0 == UInt8(ascii: "-") || isAlphanumeric($0)) }),
                  isAlphanumeric(first), isAlphanumeric(last) else { return false }
            if i == labels.count - 1, !isLetter(first) { return false }
        }
        return true
    }

    /// An IPv6 address (RFC 4291 §2.2; RFC 3261 §25.1 `IPv6address`): up to eight hex groups with
    /// at most one `::`, optionally ending in a dotted quad.
    public static func isIPv6(_ text: some StringProtocol) -> Bool { ipv6Groups(text) != nil }

    /// The eight 16-bit groups of an IPv6 address, or nil if it is not one.
    static func ipv6Groups(_ text: some StringProtocol) -> [UInt16]? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.count <= 45 else { return nil }
        let colon = UInt8(ascii: ":")
        let pieces = bytes.split(separator: colon, omittingEmptySubsequences: false)
        var head: [UInt16] = [], tail: [UInt16] = []
        var doubleColons = 0, inTail = false
        var i = 0, end = pieces.count
        // A leading "::" gives two empty pieces, a trailing one two at the end; "::" alone is one.
        if bytes[0] == colon {
            guard bytes[1] == colon else { return nil }
            doubleColons = 1; inTail = true; i = 2
        }
        if bytes[bytes.count - 1] == colon {
            guard bytes[bytes.count - 2] == colon else { return nil }
            if bytes.count > 2 { doubleColons += 1 }
            end -= 2
        }
        while i < end {
            let piece = pieces[i]
            if piece.isEmpty {
                doubleColons += 1
                inTail = true
            } else if i == end - 1, piece.contains(UInt8(ascii: ".")) {
                guard isIPv4(piece) else { return nil }
                let octets = piece.split(separator: UInt8(ascii: ".")).compactMap {
                    SIPCharacters.decimal(String(decoding: $0, as: UTF8.self), as: UInt16.self)
                }
                guard octets.count == 4 else { return nil }
                let groups = [octets[0] << 8 | octets[1], octets[2] << 8 | octets[3]]
                if inTail { tail += groups } else { head += groups }
            } else {
                guard piece.count <= 4, piece.allSatisfy(SIPCharacters.hex.contains),
                      let value = UInt16(String(decoding: piece, as: UTF8.self), radix: 16) else { return nil }
                if inTail { tail.append(value) } else { head.append(value) }
            }
            i += 1
        }
        guard doubleColons <= 1 else { return nil }
        let count = head.count + tail.count
        if doubleColons == 1 {
            guard count <= 7 else { return nil }
            return head + [UInt16](repeating: 0, count: 8 - count) + tail
        }
        return count == 8 ? head : nil
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        SIPCharacters.digit.contains(byte) || isLetter(byte)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
