/// Why a DCEP message was refused (the one error type of the target). Parsing never traps.
public enum DataChannelParseError: Error, Hashable, Sendable, CustomStringConvertible {
    case truncated(needed: Int, available: Int)
    /// Not `DATA_CHANNEL_OPEN` (0x03) or `DATA_CHANNEL_ACK` (0x02).
    case unknownMessageType(UInt8)
    /// A channel type RFC 8832 §5.1 does not define.
    case unknownChannelType(UInt8)
    /// A label or protocol over `DataChannelOpen.maxStringBytes`.
    case stringTooLong(Int)
    /// A label or protocol that is not UTF-8 (RFC 8832 §5.1).
    case invalidUTF8

    public var description: String {
        switch self {
        case .truncated(let needed, let available): "dcep: truncated: needed \(needed) bytes, \(available) given"
        case .unknownMessageType(let type): "dcep: unknown message type \(type)"
        case .unknownChannelType(let type): "dcep: unknown channel type \(type)"
        case .stringTooLong(let length): "dcep: label or protocol of \(length) bytes"
        case .invalidUTF8: "dcep: label or protocol is not UTF-8"
        }
    }
}
