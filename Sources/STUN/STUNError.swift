import WireKit

/// Why the STUN codec refused a message or a TURN ChannelData (the one error type of the target).
/// Parsing never traps; every case names what was wrong.
public enum STUNError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input ended before a field it announced: the 20-byte header, the attributes the Message
    /// Length counts, or the data a ChannelData length counts.
    case truncated(needed: Int, available: Int)
    /// The two most significant bits of the message type are not zero (RFC 8489 §5).
    case topBitsSet
    /// The magic cookie is not 0x2112A442 (RFC 8489 §5); an RFC 3489 message has none.
    case badMagicCookie(UInt32)
    /// The Message Length is not a multiple of 4 (RFC 8489 §5).
    case unalignedLength(Int)
    /// Bytes follow the message, or the ChannelData and its padding, that the header announces.
    case trailingBytes(Int)
    /// An attribute's length, with its padding to 4 bytes, runs past the end of the message (RFC 8489 §14).
    case attributePastEnd(STUNAttributeType, length: Int, available: Int)
    /// An attribute where RFC 8489 §14.5–14.7 allow none: after FINGERPRINT, or other than
    /// MESSAGE-INTEGRITY-SHA256 or FINGERPRINT after MESSAGE-INTEGRITY(-SHA256). `after` is the
    /// integrity or fingerprint attribute it follows.
    case misplacedAttribute(STUNAttributeType, after: STUNAttributeType)
    /// A known attribute's value has a length its format does not allow.
    case invalidValueLength(STUNAttributeType, length: Int)
    /// An address attribute whose family is neither IPv4 (0x01) nor IPv6 (0x02) (RFC 8489 §14.1).
    case unknownAddressFamily(UInt8)
    /// USERNAME, REALM, NONCE, SOFTWARE or the ERROR-CODE reason over its byte limit (RFC 8489 §14).
    case textTooLong(STUNAttributeType, length: Int)
    /// A text attribute that is not UTF-8.
    case textNotUTF8(STUNAttributeType)
    /// ERROR-CODE's class is not 3–6 or its number not 0–99 (RFC 8489 §14.8).
    case invalidErrorCode(errorClass: UInt16, number: UInt16)
    /// Serializing: the attributes exceed the 16-bit Message Length (65,535 bytes).
    case messageTooLong(attributeBytes: Int)
    /// A ChannelData channel number outside 0x4000–0x4FFF (RFC 8656 §12).
    case channelNumberOutOfRange(UInt16)
    /// Serializing: ChannelData with more than 65,535 bytes of application data (RFC 8656 §12.4).
    case channelDataTooLong(Int)

    public var description: String {
        switch self {
        case .truncated(let needed, let available): "stun: truncated: needed \(needed) bytes, \(available) left"
        case .topBitsSet: "stun: top bits of message type set"
        case .badMagicCookie(let cookie): "stun: bad magic cookie 0x\(String(cookie, radix: 16))"
        case .unalignedLength(let length): "stun: message length \(length) not a multiple of 4"
        case .trailingBytes(let count): "stun: \(count) bytes after the message"
        case .attributePastEnd(let type, let length, let available):
            "stun: \(type) length \(length) runs past the end (\(available) left)"
        case .misplacedAttribute(let type, let after): "stun: \(type) after \(after)"
        case .invalidValueLength(let type, let length): "stun: \(type) of \(length) bytes"
        case .unknownAddressFamily(let family): "stun: unknown address family \(family)"
        case .textTooLong(let type, let length): "stun: \(type) of \(length) bytes is too long"
        case .textNotUTF8(let type): "stun: \(type) is not UTF-8"
        case .invalidErrorCode(let errorClass, let number): "stun: ERROR-CODE class \(errorClass) number \(number)"
        case .messageTooLong(let bytes): "stun: \(bytes) attribute bytes exceed 65535"
        case .channelNumberOutOfRange(let number):
            "channeldata: channel number 0x\(String(number, radix: 16)) outside 0x4000-0x4FFF"
        case .channelDataTooLong(let count): "channeldata: \(count) bytes exceed 65535"
        }
    }
}

/// Runs reads on a `ByteReader`, whose only failure is running out of bytes, and reports that
/// failure as `error`: what running out means depends on what is being read.
@inline(__always)
func reading<T>(orThrow error: @autoclosure () -> STUNError,
                _ read: () throws(WireError) -> T) throws(STUNError) -> T {
    do { return try read() } catch _ { throw error() }
}
