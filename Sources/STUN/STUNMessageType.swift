/// The class of a STUN message: the C1 and C0 bits of the message type (RFC 8489 §5).
public enum STUNMessageClass: UInt8, Sendable, Hashable, CaseIterable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}

/// A STUN method: 12 bits spread over the message type (RFC 8489 §5, IANA "STUN Methods").
public struct STUNMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 12-bit method number; higher bits are dropped.
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue & 0x0FFF }

    /// Binding (RFC 8489 §3).
    public static let binding = STUNMethod(rawValue: 0x001)
    /// Allocate (RFC 8656 §17): request a relayed transport address.
    public static let allocate = STUNMethod(rawValue: 0x003)
    /// Refresh (RFC 8656 §17): extend or delete an allocation.
    public static let refresh = STUNMethod(rawValue: 0x004)
    /// Send (RFC 8656 §17): an indication carrying data to a peer.
    public static let send = STUNMethod(rawValue: 0x006)
    /// Data (RFC 8656 §17): an indication carrying data from a peer.
    public static let data = STUNMethod(rawValue: 0x007)
    /// CreatePermission (RFC 8656 §17).
    public static let createPermission = STUNMethod(rawValue: 0x008)
    /// ChannelBind (RFC 8656 §17).
    public static let channelBind = STUNMethod(rawValue: 0x009)

    public var description: String {
        switch self {
        case .binding: "Binding"
        case .allocate: "Allocate"
        case .refresh: "Refresh"
        case .send: "Send"
        case .data: "Data"
        case .createPermission: "CreatePermission"
        case .channelBind: "ChannelBind"
        default: "Method(0x\(String(rawValue, radix: 16)))"
        }
    }
}

/// The 14-bit STUN message type: a method and a class interleaved (RFC 8489 §5, Figure 3).
///
///      0                 1
///      2  3  4 5 6 7 8 9 0 1 2 3 4 5
///     +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
///     |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
///     |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
///     +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
public struct STUNMessageType: Sendable, Hashable, CustomStringConvertible {
    /// The 12-bit method.
    public var method: STUNMethod
    /// Request, indication, success or error response.
    public var messageClass: STUNMessageClass

    public init(method: STUNMethod, messageClass: STUNMessageClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// Splits the 14 low bits of the header's first field into method and class.
    public init(encoded value: UInt16) {
        let m = value & 0x000F | (value >> 1) & 0x0070 | (value >> 2) & 0x0F80
        let c = (value >> 4) & 0x1 | (value >> 7) & 0x2
        method = STUNMethod(rawValue: m)
        switch c {
        case 0: messageClass = .request
        case 1: messageClass = .indication
        case 2: messageClass = .successResponse
        default: messageClass = .errorResponse
        }
    }

    /// The interleaved 14-bit value written in the header.
    public var encoded: UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return m & 0x000F | (m & 0x0070) << 1 | (m & 0x0F80) << 2 | (c & 0x1) << 4 | (c & 0x2) << 7
    }

    /// Binding request: an ICE connectivity check or a STUN server query (RFC 8489 §6).
    public static let bindingRequest = STUNMessageType(method: .binding, messageClass: .request)
    /// Binding indication: an ICE keepalive (RFC 8445 §11).
    public static let bindingIndication = STUNMessageType(method: .binding, messageClass: .indication)
    /// Binding success response.
    public static let bindingSuccess = STUNMessageType(method: .binding, messageClass: .successResponse)
    /// Binding error response.
    public static let bindingError = STUNMessageType(method: .binding, messageClass: .errorResponse)

    public var description: String { "\(method) \(messageClass)" }
}
