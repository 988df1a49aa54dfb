import ParleyNet

/// Where a SIP message came from, and so where its answer goes (RFC 3261 §18.2.2 with RFC 3581:
/// responses go back to the packet's source, which also crosses NATs).
public struct SIPPeer: Sendable, Hashable, CustomStringConvertible {
    /// `ws`/`wss`: SIP over WebSocket (RFC 7118 §5.2, Via transports `WS`, `WSS`).
    public enum Transport: String, Sendable, Hashable { case udp = "UDP", tcp = "TCP", tls = "TLS", ws = "WS", wss = "WSS" }

    public var transport: Transport
    public var address: SocketAddress
    /// The stream connection it arrived on (TCP, TLS, a WebSocket).
    public var connection: Int?

    public init(transport: Transport, address: SocketAddress, connection: Int? = nil) {
        self.transport = transport
        self.address = address
        self.connection = connection
    }

    /// Reliable transports do not retransmit (RFC 3261 §17).
    public var isReliable: Bool { transport != .udp }

    /// `udp:127.0.0.1:5062`: the form bindings store.
    public var description: String { "\(transport.rawValue.lowercased()):\(address)" }
}
