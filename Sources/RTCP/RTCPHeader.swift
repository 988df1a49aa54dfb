import WireKit

/// An RTCP packet type (RFC 3550 §12.1, RFC 4585 §6.1); unknown values are kept as-is.
public struct RTCPPacketType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let senderReport = Self(rawValue: 200)
    public static let receiverReport = Self(rawValue: 201)
    public static let sourceDescription = Self(rawValue: 202)
    public static let goodbye = Self(rawValue: 203)
    public static let applicationDefined = Self(rawValue: 204)
    /// Transport-layer feedback (RTPFB, RFC 4585 §6.2).
    public static let transportFeedback = Self(rawValue: 205)
    /// Payload-specific feedback (PSFB, RFC 4585 §6.3).
    public static let payloadFeedback = Self(rawValue: 206)

    public var description: String { "\(rawValue)" }
}

/// The 4-byte header every RTCP packet starts with (RFC 3550 §6.4.1).
///
/// ```
/// |V=2|P|  RC/FMT |      PT       |             length            |
/// ```
public struct RTCPHeader: Sendable, Hashable {
    /// The P bit: padding at the end of this packet, counted by its last octet.
    public var padding: Bool
    /// The 5-bit field: report or source count, feedback FMT, or APP subtype.
    public var count: UInt8
    public var packetType: RTCPPacketType
    /// The packet's length in 32-bit words minus one, header and padding included.
    public var length: UInt16

    public init(padding: Bool = false, count: UInt8, packetType: RTCPPacketType, length: UInt16) {
        self.padding = padding
        self.count = count
        self.packetType = packetType
        self.length = length
    }

    /// Reads the first 4 bytes of `bytes` and checks the version.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        guard bytes.count >= 4 else { throw .truncated(needed: 4, available: bytes.count) }
        guard bytes[0] >> 6 == 2 else { throw .unsupportedVersion(bytes[0] >> 6) }
        padding = bytes[0] & 0x20 != 0
        count = bytes[0] & 0x1F
        packetType = RTCPPacketType(rawValue: bytes[1])
        length = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// The whole packet's size in bytes: (length + 1) × 4.
    public var packetSize: Int { (Int(length) + 1) * 4 }

    /// Writes a header for a packet of `size` bytes (a multiple of 4).
    static func write(count: UInt8, type: RTCPPacketType, size: Int, padding: Bool = false,
                      into writer: inout ByteWriter) {
        writer.writeUInt8(0x80 | (padding ? 0x20 : 0) | count & 0x1F)
        writer.writeUInt8(type.rawValue)
        writer.writeUInt16(UInt16(truncatingIfNeeded: size / 4 - 1))
    }

    /// Checks that `packet` is exactly one packet of `type` (and `count`, when given) and returns
    /// its header and a reader over the body: after the header, before any padding (unless
    /// `stripPadding` is false, for formats whose senders set P without valid padding).
    static func open(_ packet: UnsafeRawBufferPointer, type: RTCPPacketType, count: UInt8? = nil,
                     stripPadding: Bool = true) throws(RTCPError) -> (RTCPHeader, RTCPReader) {
        let header = try RTCPHeader(parsing: packet)
        let size = header.packetSize
        guard size <= packet.count else { throw .lengthPastEnd(declared: size, available: packet.count) }
        guard size == packet.count else { throw .trailingBytes(declared: size, actual: packet.count) }
        guard header.packetType == type, count.map({ $0 == header.count }) ?? true else {
            throw .wrongPacketType(packetType: header.packetType.rawValue, count: header.count)
        }
        var end = size
        if header.padding && stripPadding {
            // §6.4.1: the last octet counts the padding, itself included. The RFC says senders
            // pad to a multiple of four; receivers accept any count that fits.
            let pad = Int(packet[size - 1])
            guard pad >= 1, pad <= size - 4 else {
                throw .invalidPadding(count: pad, available: size - 4)
            }
            end -= pad
        }
        return (header, RTCPReader(UnsafeRawBufferPointer(rebasing: packet[4..<end])))
    }
}

/// Pads a body of `unaligned` bytes to 32 bits with RTCP padding (zeros, then the count), for
/// bodies that are not a multiple of 4 (the P bit is set when `count(for:)` is nonzero).
enum RTCPPadding {
    static func count(for unaligned: Int) -> Int { align4(unaligned) - unaligned }

    static func write(_ count: Int, into w: inout ByteWriter) {
        guard count > 0 else { return }
        w.writeZeros(count - 1)
        w.writeUInt8(UInt8(count))
    }
}

/// Shared `[UInt8]` conveniences for every message type.
public protocol RTCPMessage: Sendable, Hashable {
    /// Parses exactly one RTCP packet of this message's type, header included.
    init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError)
    /// Bytes `serialize` writes (always a multiple of 4).
    var serializedSize: Int { get }
    /// Appends the packet, header included.
    func serialize(into writer: inout ByteWriter)
}

extension RTCPMessage {
    /// Parses exactly one RTCP packet of this message's type from an array.
    public init(parsing bytes: [UInt8]) throws(RTCPError) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(RTCPError) in try Self(parsing: raw) } }
        self = try result.get()
    }

    /// The serialized packet.
    public var serialized: [UInt8] {
        var writer = ByteWriter(capacity: serializedSize)
        serialize(into: &writer)
        return writer.take()
    }
}

/// Rounds up to a 32-bit boundary.
@inline(__always) func align4(_ n: Int) -> Int { (n + 3) & ~3 }
