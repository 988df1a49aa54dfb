/// One STUN attribute, decoded (RFC 8489 §14; RFC 8445 §16.1; RFC 8656 §18).
///
/// Types this codec does not know are kept as `.unknown` with their value bytes and re-serialized
/// unchanged, so a message survives parse → serialize intact.
public enum STUNAttribute: Sendable, Hashable {
    // RFC 8489 §14.
    case mappedAddress(STUNAddress)
    case xorMappedAddress(STUNAddress)
    case username(String)
    /// HMAC-SHA1 (20 bytes); see `STUNIntegrity` to compute and check it.
    case messageIntegrity([UInt8])
    /// HMAC-SHA256, possibly truncated: 16–32 bytes, a multiple of 4 (§14.6).
    case messageIntegritySHA256([UInt8])
    /// CRC-32 of the message XOR 0x5354554E (§14.7).
    case fingerprint(UInt32)
    case errorCode(STUNErrorCode)
    case unknownAttributes([STUNAttributeType])
    case realm(String)
    case nonce(String)
    case software(String)
    case alternateServer(STUNAddress)
    // RFC 8445 §16.1 (ICE).
    case priority(UInt32)
    case useCandidate
    /// The controlled agent's tie-breaker.
    case iceControlled(UInt64)
    /// The controlling agent's tie-breaker.
    case iceControlling(UInt64)
    // RFC 8656 §18 (TURN).
    /// 0x4000–0x4FFF.
    case channelNumber(UInt16)
    /// Seconds the allocation should live.
    case lifetime(UInt32)
    case xorPeerAddress(STUNAddress)
    case data([UInt8])
    case xorRelayedAddress(STUNAddress)
    case requestedAddressFamily(STUNAddressFamily)
    /// An IANA protocol number; 17 is UDP (§18.8).
    case requestedTransport(UInt8)
    case dontFragment
    /// Any other type, value bytes as received (without padding). Use only for types that have no
    /// case of their own: a known type here would parse back as its own case.
    case unknown(type: STUNAttributeType, value: [UInt8])

    /// The attribute's type code.
    public var type: STUNAttributeType {
        switch self {
        case .mappedAddress: .mappedAddress
        case .xorMappedAddress: .xorMappedAddress
        case .username: .username
        case .messageIntegrity: .messageIntegrity
        case .messageIntegritySHA256: .messageIntegritySHA256
        case .fingerprint: .fingerprint
        case .errorCode: .errorCode
        case .unknownAttributes: .unknownAttributes
        case .realm: .realm
        case .nonce: .nonce
        case .software: .software
        case .alternateServer: .alternateServer
        case .priority: .priority
        case .useCandidate: .useCandidate
        case .iceControlled: .iceControlled
        case .iceControlling: .iceControlling
        case .channelNumber: .channelNumber
        case .lifetime: .lifetime
        case .xorPeerAddress: .xorPeerAddress
        case .data: .data
        case .xorRelayedAddress: .xorRelayedAddress
        case .requestedAddressFamily: .requestedAddressFamily
        case .requestedTransport: .requestedTransport
        case .dontFragment: .dontFragment
        case .unknown(let type, _): type
        }
    }
}
