/// The kind of a candidate (RFC 8445 §5.1.1).
public enum ICECandidateType: String, Sendable, Hashable, CaseIterable {
    /// An address on a local interface.
    case host
    /// A NAT mapping learned from a STUN (or TURN) server.
    case srflx
    /// A mapping learned from a connectivity check (RFC 8445 §7.2.5.3.1, §7.3.1.3).
    case prflx
    /// An address on a TURN server (RFC 8656).
    case relay

    /// The recommended type preference (RFC 8445 §5.1.2.2): host 126, prflx 110, srflx 100, relay 0.
    public var preference: UInt32 {
        switch self {
        case .host: 126
        case .prflx: 110
        case .srflx: 100
        case .relay: 0
        }
    }
}

/// The transport protocol of a candidate (RFC 8445 §5.1.1; TCP per RFC 6544).
public enum ICETransportProtocol: String, Sendable, Hashable {
    case udp
    case tcp
}

/// The `tcptype` of a TCP candidate (RFC 6544 §4.5).
public enum ICETCPType: String, Sendable, Hashable {
    case active
    case passive
    case so
}

/// One ICE candidate: a transport address and how it was obtained (RFC 8445 §5.1).
public struct ICECandidate: Sendable, Hashable, CustomStringConvertible {
    /// Equal for candidates of the same type, base IP, server and transport (RFC 8445 §5.1.1.3).
    public var foundation: String
    /// 1 for RTP (or everything, with RTP/RTCP mux and BUNDLE); 2 for RTCP.
    public var component: UInt16
    public var transport: ICETransportProtocol
    /// RFC 8445 §5.1.2.1; see `priority(type:localPreference:component:)`.
    public var priority: UInt32
    public var address: ICETransportAddress
    public var type: ICECandidateType
    /// For srflx/prflx the base, for relay the mapped address (RFC 8839 §5.1 `raddr`/`rport`).
    public var relatedAddress: ICETransportAddress?
    /// Only for TCP candidates.
    public var tcpType: ICETCPType?

    public init(foundation: String, component: UInt16 = 1, transport: ICETransportProtocol = .udp,
                priority: UInt32, address: ICETransportAddress, type: ICECandidateType,
                relatedAddress: ICETransportAddress? = nil, tcpType: ICETCPType? = nil) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.type = type
        self.relatedAddress = relatedAddress
        self.tcpType = tcpType
    }

    /// A candidate with its priority computed from `localPreference` (RFC 8445 §5.1.2) and its
    /// foundation from type, base and server (§5.1.1.3).
    public init(type: ICECandidateType, address: ICETransportAddress, base: ICETransportAddress? = nil,
                server: ICETransportAddress? = nil, localPreference: UInt16 = 65535, component: UInt16 = 1,
                transport: ICETransportProtocol = .udp, relatedAddress: ICETransportAddress? = nil) {
        self.init(foundation: Self.foundation(type: type, baseIP: (base ?? address).ipString,
                                              serverIP: server?.ipString, transport: transport),
                  component: component, transport: transport,
                  priority: Self.priority(type: type, localPreference: localPreference, component: component),
                  address: address, type: type, relatedAddress: relatedAddress)
    }

    /// RFC 8445 §5.1.2.1:
    ///
    ///     priority = (2^24)*(type preference) + (2^8)*(local preference) + (2^0)*(256 - component ID)
    public static func priority(type: ICECandidateType, localPreference: UInt16, component: UInt16 = 1) -> UInt32 {
        let componentPart = UInt32(256 &- UInt32(min(max(component, 1), 256)))
        return type.preference << 24 | UInt32(localPreference) << 8 | componentPart
    }

    /// A foundation shared by candidates with the same type, base IP, STUN/TURN server IP and
    /// transport (RFC 8445 §5.1.1.3): an FNV-1a hash of those, as decimal text (1–32 ice-chars,
    /// RFC 8839 §5.1), stable across runs.
    public static func foundation(type: ICECandidateType, baseIP: String, serverIP: String?,
                                  transport: ICETransportProtocol) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in "\(type.rawValue)|\(baseIP)|\(serverIP ?? "")|\(transport.rawValue)".utf8 {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return String(hash)
    }

    public var description: String { sdpAttributeValue }
}
