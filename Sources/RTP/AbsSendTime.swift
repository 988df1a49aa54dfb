import WireKit

/// The abs-send-time header extension element
/// (http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time): 3 bytes holding the send time
/// as 6.18 fixed-point seconds, i.e. bits 14–37 of the 64-bit NTP timestamp, wrapping every 64 s.
public struct AbsSendTime: Sendable, Hashable {
    /// The 24-bit value on the wire.
    public var rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue & 0x00FF_FFFF
    }

    /// Takes the middle 24 bits of a 64-bit NTP timestamp (32.32 fixed point).
    public init(ntpTimestamp: UInt64) {
        rawValue = UInt32(truncatingIfNeeded: ntpTimestamp >> 14) & 0x00FF_FFFF
    }

    /// Decodes the first 3 bytes of an element's data.
    public init(parsing data: UnsafeRawBufferPointer) throws(RTPError) {
        guard data.count >= 3 else { throw .elementTooShort(needed: 3, available: data.count) }
        rawValue = UInt32(data[0]) << 16 | UInt32(data[1]) << 8 | UInt32(data[2])
    }

    /// Seconds within the 64-second wrap, at 2^-18 s (about 3.8 µs) resolution.
    public var seconds: Double { Double(rawValue) / 262_144 }

    /// Element data size.
    public static let serializedSize = 3

    /// The 3 element data bytes.
    public var serialized: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue >> 16), UInt8(truncatingIfNeeded: rawValue >> 8),
         UInt8(truncatingIfNeeded: rawValue)]
    }

    /// Writes the 3 bytes at the start of `element` (which must hold at least 3).
    public func write(to element: UnsafeMutableRawBufferPointer) {
        element[0] = UInt8(truncatingIfNeeded: rawValue >> 16)
        element[1] = UInt8(truncatingIfNeeded: rawValue >> 8)
        element[2] = UInt8(truncatingIfNeeded: rawValue)
    }

    public func serialize(into writer: inout ByteWriter) { writer.writeUInt24(rawValue) }
}
