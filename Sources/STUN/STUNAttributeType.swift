/// A STUN attribute type (RFC 8489 §14, IANA "STUN Attributes").
///
/// Types below 0x8000 are comprehension-required: an agent that does not understand one must
/// reject the request with 420 (Unknown Attribute); 0x8000 and above may be ignored (§14).
public struct STUNAttributeType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// True for 0x0000–0x7FFF (RFC 8489 §14).
    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    // RFC 8489 §18.3.1 (comprehension-required).
    public static let mappedAddress = STUNAttributeType(rawValue: 0x0001)
    public static let username = STUNAttributeType(rawValue: 0x0006)
    public static let messageIntegrity = STUNAttributeType(rawValue: 0x0008)
    public static let errorCode = STUNAttributeType(rawValue: 0x0009)
    public static let unknownAttributes = STUNAttributeType(rawValue: 0x000A)
    public static let realm = STUNAttributeType(rawValue: 0x0014)
    public static let nonce = STUNAttributeType(rawValue: 0x0015)
    public static let messageIntegritySHA256 = STUNAttributeType(rawValue: 0x001C)
    public static let passwordAlgorithm = STUNAttributeType(rawValue: 0x001D)
    public static let userhash = STUNAttributeType(rawValue: 0x001E)
    public static let xorMappedAddress = STUNAttributeType(rawValue: 0x0020)
    // RFC 8489 §18.3.2 (comprehension-optional).
    public static let passwordAlgorithms = STUNAttributeType(rawValue: 0x8002)
    public static let alternateDomain = STUNAttributeType(rawValue: 0x8003)
    public static let software = STUNAttributeType(rawValue: 0x8022)
    public static let alternateServer = STUNAttributeType(rawValue: 0x8023)
    public static let fingerprint = STUNAttributeType(rawValue: 0x8028)
    // RFC 8656 §18 (TURN).
    public static let channelNumber = STUNAttributeType(rawValue: 0x000C)
    public static let lifetime = STUNAttributeType(rawValue: 0x000D)
    public static let xorPeerAddress = STUNAttributeType(rawValue: 0x0012)
    public static let data = STUNAttributeType(rawValue: 0x0013)
    public static let xorRelayedAddress = STUNAttributeType(rawValue: 0x0016)
    public static let requestedAddressFamily = STUNAttributeType(rawValue: 0x0017)
    public static let evenPort = STUNAttributeType(rawValue: 0x0018)
    public static let requestedTransport = STUNAttributeType(rawValue: 0x0019)
    public static let dontFragment = STUNAttributeType(rawValue: 0x001A)
    public static let reservationToken = STUNAttributeType(rawValue: 0x0022)
    // RFC 8445 §16.1 (ICE).
    public static let priority = STUNAttributeType(rawValue: 0x0024)
    public static let useCandidate = STUNAttributeType(rawValue: 0x0025)
    public static let iceControlled = STUNAttributeType(rawValue: 0x8029)
    public static let iceControlling = STUNAttributeType(rawValue: 0x802A)

    private static let names: [UInt16: String] = [
        0x0001: "MAPPED-ADDRESS", 0x0006: "USERNAME", 0x0008: "MESSAGE-INTEGRITY", 0x0009: "ERROR-CODE",
        0x000A: "UNKNOWN-ATTRIBUTES", 0x0014: "REALM", 0x0015: "NONCE", 0x001C: "MESSAGE-INTEGRITY-SHA256",
        0x001D: "PASSWORD-ALGORITHM", 0x001E: "USERHASH", 0x0020: "XOR-MAPPED-ADDRESS",
        0x8002: "PASSWORD-ALGORITHMS", 0x8003: "ALTERNATE-DOMAIN", 0x8022: "SOFTWARE",
        0x8023: "ALTERNATE-SERVER", 0x8028: "FINGERPRINT", 0x000C: "CHANNEL-NUMBER", 0x000D: "LIFETIME",
        0x0012: "XOR-PEER-ADDRESS", 0x0013: "DATA", 0x0016: "XOR-RELAYED-ADDRESS",
        0x0017: "REQUESTED-ADDRESS-FAMILY", 0x0018: "EVEN-PORT", 0x0019: "REQUESTED-TRANSPORT",
        0x001A: "DONT-FRAGMENT", 0x0022: "RESERVATION-TOKEN", 0x0024: "PRIORITY", 0x0025: "USE-CANDIDATE",
        0x8029: "ICE-CONTROLLED", 0x802A: "ICE-CONTROLLING",
    ]

    public var description: String {
        Self.names[rawValue] ?? "0x" + String(rawValue, radix: 16, uppercase: true)
    }
}
