#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address with a CIDR prefix length (RFC 4632 §3.1, RFC 4291 §2.3): what an IP
/// access control list entry admits. Text is parsed by the C library's `inet_pton`, so only the
/// standard dotted-quad and RFC 4291 §2.2 forms are accepted.
public struct IPAddressRange: Sendable, Equatable {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public let bytes: [UInt8]
    /// Leading bits that must match: 0…32 for IPv4, 0…128 for IPv6.
    public let prefixLength: Int

    /// Nil unless `address` is a valid IPv4 or IPv6 address and `prefixLength` fits its family.
    public init?(address: String, prefixLength: Int) {
        guard let bytes = Self.parse(address), prefixLength >= 0, prefixLength <= bytes.count * 8 else { return nil }
        self.bytes = bytes
        self.prefixLength = prefixLength
    }

    /// Whether `address` (text, IPv4 or IPv6; an IPv4-mapped IPv6 address counts as its IPv4 one)
    /// lies in this range.
    public func contains(_ address: String) -> Bool {
        guard var other = Self.parse(address) else { return false }
        if other.count == 16, bytes.count == 4, other.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] {
            other = Array(other.suffix(4))
        }
        guard other.count == bytes.count else { return false }
        var remaining = prefixLength
        for i in 0..<bytes.count where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            if bytes[i] & mask != other[i] & mask { return false }
            remaining -= 8
        }
        return true
    }

    /// The address's bytes: 4 for IPv4, 16 for IPv6; nil for anything else (names, zone IDs, junk).
    public static func parse(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
