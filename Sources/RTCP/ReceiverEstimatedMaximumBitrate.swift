import WireKit

/// Receiver estimated maximum bitrate, PSFB FMT 15 with unique id "REMB"
/// (draft-alvestrand-rmcat-remb-03 §2.2): a bitrate as mantissa × 2^exponent for a set of SSRCs.
///
/// ```
/// |  Unique identifier 'R' 'E' 'M' 'B'                            |
/// |  Num SSRC     | BR Exp    |  BR Mantissa                      |
/// |   SSRC feedback ...                                           |
/// ```
public struct ReceiverEstimatedMaximumBitrate: RTCPMessage {
    public static let format: UInt8 = 15
    /// "REMB" in ASCII.
    public static let uniqueIdentifier: UInt32 = 0x5245_4D42

    public var senderSSRC: UInt32
    /// Always 0 on the wire per the draft; kept as read.
    public var mediaSSRC: UInt32
    /// The 18-bit mantissa, kept exactly so a parsed packet re-serializes unchanged.
    public var mantissa: UInt32
    /// The 6-bit exponent.
    public var exponent: UInt8
    /// The SSRCs the estimate applies to; at most 255 are written.
    public var ssrcs: [UInt32]

    /// Encodes `bitrate` (bits per second) with the smallest exponent whose mantissa fits 18 bits,
    /// rounding down.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.ssrcs = ssrcs
        var exponent: UInt8 = 0
        var mantissa = bitrate
        while mantissa > 0x3_FFFF && exponent < 63 {
            mantissa >>= 1
            exponent += 1
        }
        self.mantissa = UInt32(truncatingIfNeeded: mantissa) & 0x3_FFFF
        self.exponent = exponent
    }

    /// Bits per second: mantissa × 2^exponent, saturating at `UInt64.max`.
    public var bitrate: UInt64 {
        let m = UInt64(mantissa & 0x3_FFFF)
        let e = UInt64(exponent & 0x3F)
        guard m != 0 else { return 0 }
        return m.leadingZeroBitCount >= e ? m << e : .max
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let (_, body) = try RTCPHeader.open(packet, type: .payloadFeedback, count: Self.format)
        var r = body
        senderSSRC = try r.u32()
        mediaSSRC = try r.u32()
        guard try r.u32() == Self.uniqueIdentifier else { throw .notREMB }
        let count = Int(try r.u8())
        let bits = try r.u24()
        exponent = UInt8(bits >> 18)
        mantissa = bits & 0x3_FFFF
        guard count * 4 == r.remaining else { throw .countMismatch(count: count, available: r.remaining) }
        var ssrcs: [UInt32] = []
        for _ in 0..<count { ssrcs.append(try r.u32()) }
        self.ssrcs = ssrcs
    }

    /// True when an FMT 15 payload-specific feedback body starts with the "REMB" identifier.
    static func isREMB(_ packet: UnsafeRawBufferPointer) -> Bool {
        guard packet.count >= 16 else { return false }
        return packet[12] == 0x52 && packet[13] == 0x45 && packet[14] == 0x4D && packet[15] == 0x42
    }

    public var serializedSize: Int { 20 + 4 * min(ssrcs.count, 255) }

    public func serialize(into w: inout ByteWriter) {
        let written = ssrcs.prefix(255)
        RTCPHeader.write(count: Self.format, type: .payloadFeedback, size: serializedSize, into: &w)
        w.writeUInt32(senderSSRC)
        w.writeUInt32(mediaSSRC)
        w.writeUInt32(Self.uniqueIdentifier)
        w.writeUInt8(UInt8(written.count))
        w.writeUInt24(UInt32(exponent & 0x3F) << 18 | mantissa & 0x3_FFFF)
        for ssrc in written { w.writeUInt32(ssrc) }
    }
}
