/// A message of the Data Channel Establishment Protocol (RFC 8832), carried on an SCTP stream
/// with payload protocol identifier 50 (`DataChannelPPID.dcep`): the opener sends
/// `DATA_CHANNEL_OPEN`, the other side answers `DATA_CHANNEL_ACK` (§5).
public enum DataChannelMessage: Sendable, Hashable {
    case open(DataChannelOpen)
    case ack

    /// Message types (RFC 8832 §8.2.1).
    static let openType: UInt8 = 0x03
    static let ackType: UInt8 = 0x02

    /// Parses one DCEP message (the whole SCTP user message).
    public init(parsing bytes: ArraySlice<UInt8>) throws(DataChannelParseError) {
        guard let type = bytes.first else { throw .truncated(needed: 1, available: 0) }
        switch type {
        case Self.openType: self = .open(try DataChannelOpen(parsing: bytes))
        case Self.ackType: self = .ack  // §5.2: one byte; anything after it is ignored
        default: throw .unknownMessageType(type)
        }
    }

    public func serialize(into out: inout [UInt8]) {
        switch self {
        case .open(let open): open.serialize(into: &out)
        case .ack: out.append(Self.ackType)
        }
    }

    public var serialized: [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }
}

/// `DATA_CHANNEL_OPEN` (RFC 8832 §5.1):
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  Message Type |  Channel Type |            Priority           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                    Reliability Parameter                      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |         Label Length          |       Protocol Length         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// \                             Label                             /
/// \                            Protocol                           /
/// ```
public struct DataChannelOpen: Sendable, Hashable {
    /// How messages are delivered (RFC 8832 §5.1, channel types).
    public enum Reliability: Sendable, Hashable {
        /// Retransmitted until acknowledged.
        case reliable
        /// Retransmitted at most this many times (`maxRetransmits`).
        case maxRetransmits(UInt32)
        /// Retransmitted for at most this many milliseconds (`maxPacketLifeTime`).
        case maxPacketLifeTime(UInt32)
    }

    public var reliability: Reliability
    /// Whether messages may be delivered out of order.
    public var isOrdered: Bool
    /// RFC 8831 §6.4 priority (256 below normal, 512 normal, 768 high, 1024 extra high).
    public var priority: UInt16
    public var label: String
    public var `protocol`: String
    /// Longest label or protocol accepted, in bytes (the length fields allow 65,535).
    public static let maxStringBytes = 4096

    public init(label: String, protocol: String = "", isOrdered: Bool = true, reliability: Reliability = .reliable,
                priority: UInt16 = 256) {
        self.label = label
        self.protocol = `protocol`
        self.isOrdered = isOrdered
        self.reliability = reliability
        self.priority = priority
    }

    init(parsing bytes: ArraySlice<UInt8>) throws(DataChannelParseError) {
        guard bytes.count >= 12 else { throw .truncated(needed: 12, available: bytes.count) }
        let b = bytes.startIndex
        let channelType = bytes[b + 1]
        priority = UInt16(bytes[b + 2]) << 8 | UInt16(bytes[b + 3])
        let parameter = UInt32(bytes[b + 4]) << 24 | UInt32(bytes[b + 5]) << 16 | UInt32(bytes[b + 6]) << 8 | UInt32(bytes[b + 7])
        let labelLength = Int(bytes[b + 8]) << 8 | Int(bytes[b + 9])
        let protocolLength = Int(bytes[b + 10]) << 8 | Int(bytes[b + 11])
        guard labelLength <= Self.maxStringBytes, protocolLength <= Self.maxStringBytes else {
            throw .stringTooLong(max(labelLength, protocolLength))
        }
        guard bytes.count >= 12 + labelLength + protocolLength else {
            throw .truncated(needed: 12 + labelLength + protocolLength, available: bytes.count)
        }
        isOrdered = channelType & 0x80 == 0
        switch channelType & 0x7F {
        case 0x00: reliability = .reliable
        case 0x01: reliability = .maxRetransmits(parameter)
        case 0x02: reliability = .maxPacketLifeTime(parameter)
        default: throw .unknownChannelType(channelType)
        }
        let labelStart = b + 12, protocolStart = labelStart + labelLength
        guard let label = String(validating: bytes[labelStart..<protocolStart], as: UTF8.self),
              let proto = String(validating: bytes[protocolStart..<(protocolStart + protocolLength)], as: UTF8.self) else {
            throw .invalidUTF8
        }
        self.label = label
        self.protocol = proto
    }

    func serialize(into out: inout [UInt8]) {
        let (type, parameter): (UInt8, UInt32) = switch reliability {
        case .reliable: (0x00, 0)
        case .maxRetransmits(let n): (0x01, n)
        case .maxPacketLifeTime(let ms): (0x02, ms)
        }
        let label = Array(self.label.utf8.prefix(Self.maxStringBytes))
        let proto = Array(self.protocol.utf8.prefix(Self.maxStringBytes))
        out.append(DataChannelMessage.openType)
        out.append(type | (isOrdered ? 0 : 0x80))
        out += [UInt8(priority >> 8), UInt8(priority & 0xFF)]
        out += [UInt8(parameter >> 24), UInt8((parameter >> 16) & 0xFF), UInt8((parameter >> 8) & 0xFF), UInt8(parameter & 0xFF)]
        out += [UInt8(label.count >> 8), UInt8(label.count & 0xFF), UInt8(proto.count >> 8), UInt8(proto.count & 0xFF)]
        out += label
        out += proto
    }
}

/// SCTP payload protocol identifiers of WebRTC data channels (RFC 8831 §8).
public enum DataChannelPPID: UInt32, Sendable {
    /// A DCEP message.
    case dcep = 50
    case string = 51
    case binary = 53
    /// An empty string or binary message (SCTP cannot carry zero bytes: one byte is sent).
    case emptyString = 56
    case emptyBinary = 57
}
