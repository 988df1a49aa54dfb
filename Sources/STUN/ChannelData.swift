import WireKit

/// A TURN ChannelData message (RFC 8656 §12.4): application data to or from a peer bound to a
/// channel, with a 4-byte header instead of a 36-byte Send/Data indication.
///
///      0                   1                   2                   3
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |         Channel Number        |            Length             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     /                       Application Data                        /
///     /                                                               /
///     |                               +-------------------------------+
///     |                               |
///     +-------------------------------+
public struct ChannelData: Sendable, Hashable {
    /// Valid channel numbers (RFC 8656 §12); the first byte lands in 64–79 (RFC 7983).
    public static let channelRange: ClosedRange<UInt16> = 0x4000...0x4FFF

    /// 0x4000–0x4FFF.
    public var channelNumber: UInt16
    public var data: [UInt8]

    public init(channelNumber: UInt16, data: [UInt8]) {
        self.channelNumber = channelNumber
        self.data = data
    }

    /// Parses one ChannelData message. Over TCP the message is padded to 4 bytes (§12.5); over UDP
    /// padding is optional, so up to 3 bytes after the data are accepted and ignored.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(STUNError) {
        var r = ByteReader(bytes)
        let (number, length) = try reading(orThrow: .truncated(needed: 4, available: bytes.count)) {
            () throws(WireError) in (try r.readUInt16(), Int(try r.readUInt16()))
        }
        guard Self.channelRange.contains(number) else { throw .channelNumberOutOfRange(number) }
        let available = r.remaining
        let data = try reading(orThrow: .truncated(needed: length, available: available)) {
            () throws(WireError) in try r.readBytes(length)
        }
        guard r.remaining < 4 else { throw .trailingBytes(r.remaining) }
        self.init(channelNumber: number, data: data)
    }

    /// Parses a message held in an array.
    public init(parsing bytes: [UInt8]) throws(STUNError) {
        // `withUnsafeBytes` rethrows untyped errors, so carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in Result { () throws(STUNError) in try ChannelData(parsing: raw) } }
        self = try result.get()
    }

    /// For ChannelData over a stream (RFC 8656 §12.5): the size of the padded message `bytes`
    /// starts with; nil until 4 bytes are available.
    public static func frameLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var r = ByteReader(bytes)
        guard (try? r.readUInt16()) != nil, let length = try? r.readUInt16() else { return nil }
        return 4 + ((Int(length) + 3) & ~3)
    }

    /// Bytes `serialize(into:padded:)` writes.
    public func serializedSize(padded: Bool) -> Int {
        padded ? 4 + ((data.count + 3) & ~3) : 4 + data.count
    }

    /// Appends the message; `padded` rounds it to 4 bytes with zeros, as TCP and TLS require
    /// (§12.5). Throws, writing nothing, for a channel number outside 0x4000–0x4FFF or more than
    /// 65,535 bytes of data.
    public func serialize(into writer: inout ByteWriter, padded: Bool = false) throws(STUNError) {
        guard Self.channelRange.contains(channelNumber) else { throw .channelNumberOutOfRange(channelNumber) }
        guard data.count <= 0xFFFF else { throw .channelDataTooLong(data.count) }
        writer.writeUInt16(channelNumber)
        writer.writeUInt16(UInt16(data.count))
        writer.writeBytes(data)
        if padded { writer.writeZeros((4 - data.count % 4) % 4) }
    }

    /// The message as a new array; see `serialize(into:padded:)`.
    public func serialized(padded: Bool = false) throws(STUNError) -> [UInt8] {
        var writer = ByteWriter(capacity: serializedSize(padded: padded))
        try serialize(into: &writer, padded: padded)
        return writer.take()
    }
}
