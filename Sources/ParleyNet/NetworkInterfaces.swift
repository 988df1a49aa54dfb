import Glibc

/// One address of a host network interface.
public struct InterfaceAddress: Sendable, Hashable, CustomStringConvertible {
    /// The interface's name (`eth0`, `lo`).
    public var interface: String
    /// The address as text: dotted quad or RFC 5952 IPv6 (no zone).
    public var ip: String
    public var isIPv6: Bool
    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool

    public var description: String { "\(interface) \(ip)" }
}

/// The host's interface addresses (getifaddrs(3)), for what a wildcard-bound socket is reachable at.
public enum NetworkInterfaces {
    /// The addresses of interfaces that are up, IPv4 ones or IPv6 ones, in getifaddrs order;
    /// IPv6 link-local addresses (fe80::/10, only usable with a zone) are left out.
    public static func addresses(ipv6: Bool) -> [InterfaceAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var result: [InterfaceAddress] = []
        var next = list
        while let entry = next {
            next = entry.pointee.ifa_next
            guard entry.pointee.ifa_flags & interfaceUp != 0, let address = entry.pointee.ifa_addr,
                  Int32(address.pointee.sa_family) == (ipv6 ? AF_INET6 : AF_INET) else { continue }
            let name = String(cString: entry.pointee.ifa_name)
            if ipv6 {
                let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                let (first, second) = withUnsafeBytes(of: bytes) { ($0[0], $0[1]) }
                if first == 0xFE, second & 0xC0 == 0x80 { continue }
                let loopback = withUnsafeBytes(of: bytes) { raw in raw.prefix(15).allSatisfy { $0 == 0 } && raw[15] == 1 }
                guard let text = ipText(AF_INET6, bytes) else { continue }
                result.append(InterfaceAddress(interface: name, ip: text, isIPv6: true, isLoopback: loopback))
            } else {
                let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                let loopback = withUnsafeBytes(of: bytes) { $0[0] == 127 }
                guard let text = ipText(AF_INET, bytes) else { continue }
                result.append(InterfaceAddress(interface: name, ip: text, isIPv6: false, isLoopback: loopback))
            }
        }
        return result
    }

    /// True when `text` is an IPv4 dotted quad or an IPv6 address (inet_pton(3); no brackets, no zone).
    public static func isIPLiteral(_ text: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    /// True for 0.0.0.0 and :: (any address: bindable, never reachable).
    public static func isUnspecified(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return v4.s_addr == 0 }
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { $0.allSatisfy { $0 == 0 } } }
        return false
    }

    /// IFF_UP (net/if.h).
    private static let interfaceUp: UInt32 = 0x1

    private static func ipText<Address>(_ family: Int32, _ address: Address) -> String? {
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, &address, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
