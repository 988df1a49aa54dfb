import Glibc
import ICE
import ParleyNet

extension ICETransportAddress {
    /// The address of a received datagram, without going through text in the common case.
    ///
    /// `SocketAddress` keeps a `sockaddr_storage` internally and exposes only `port` and
    /// `description`; reading the storage's bytes directly avoids a string per packet. The raw
    /// layout is verified once against the textual form (`rawLayoutWorks`); if it ever differs,
    /// the text path is used.
    init?(_ address: SocketAddress) {
        if SocketAddressLayout.rawLayoutWorks, let fast = SocketAddressLayout.read(address) {
            self = fast
            return
        }
        self.init(text: address.description)
    }

    /// From `SocketAddress.description`: `1.2.3.4:5` or `[::1]:5`.
    init?(text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        self.init(host, port: port)
    }
}

enum SocketAddressLayout {
    /// True when reading `sockaddr_in`/`sockaddr_in6` from the start of a `SocketAddress` gives
    /// the same answer as its description (checked on two probe addresses).
    static let rawLayoutWorks: Bool = {
        guard MemoryLayout<SocketAddress>.size >= MemoryLayout<sockaddr_storage>.size else { return false }
        for (host, port) in [("127.0.0.2", 5004), ("::1", 40000)] {
            guard let address = try? SocketAddress.resolve(host: host, port: port),
                  let raw = read(address), let text = ICETransportAddress(text: address.description),
                  raw == text else { return false }
        }
        return true
    }()

    static func read(_ address: SocketAddress) -> ICETransportAddress? {
        withUnsafeBytes(of: address) { raw -> ICETransportAddress? in
            guard raw.count >= 24 else { return nil }
            let family = raw.loadUnaligned(fromByteOffset: 0, as: sa_family_t.self)
            let port = UInt16(raw[2]) << 8 | UInt16(raw[3])
            switch Int32(family) {
            case AF_INET:
                return ICETransportAddress(ipBytes: UnsafeRawBufferPointer(rebasing: raw[4..<8]), port: port)
            case AF_INET6:
                return ICETransportAddress(ipBytes: UnsafeRawBufferPointer(rebasing: raw[8..<24]), port: port)
            default:
                return nil
            }
        }
    }
}
