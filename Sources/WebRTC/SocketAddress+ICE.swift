import ICE
import ParleyNet
import STUN

extension ICETransportAddress {
    /// The address of a received datagram, from the socket address's raw IP bytes (no text, no
    /// allocation).
    init?(_ address: SocketAddress) {
        let port = UInt16(truncatingIfNeeded: address.port)
        guard let converted = address.withUnsafeIPBytes({ ICETransportAddress(ipBytes: $0, port: port) }) else {
            return nil
        }
        self = converted
    }

    /// From `SocketAddress.description`: `1.2.3.4:5` or `[::1]:5`.
    init?(text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        self.init(host, port: port)
    }
}

extension SocketAddress {
    /// The socket address of an ICE transport address, built directly (no getaddrinfo).
    init?(_ address: ICETransportAddress) {
        switch address.ip {
        case .v4(let a):
            let bytes = a.bigEndian
            guard let made = withUnsafeBytes(of: bytes, { SocketAddress(ipBytes: $0, port: Int(address.port)) }) else {
                return nil
            }
            self = made
        case .v6(let high, let low):
            let bytes = (high.bigEndian, low.bigEndian)
            guard let made = withUnsafeBytes(of: bytes, { SocketAddress(ipBytes: $0, port: Int(address.port)) }) else {
                return nil
            }
            self = made
        }
    }
}
