/// Serial-number arithmetic (RFC 1982) for wrapping counters: RTP sequence numbers (16 bits) and
/// timestamps (32 bits). `a` is "newer" than `b` when the forward distance from `b` to `a` is less
/// than half the number space.
public enum SerialNumber {
    /// True when `a` comes after `b` in 16-bit serial order (RFC 3550 §A.1 sequence numbers).
    @inlinable public static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        a != b && (a &- b) < 0x8000
    }

    /// True when `a` comes after `b` in 32-bit serial order (RTP timestamps).
    @inlinable public static func isNewer(_ a: UInt32, than b: UInt32) -> Bool {
        a != b && (a &- b) < 0x8000_0000
    }

    /// Signed distance from `b` to `a` in 16-bit serial order (positive when `a` is newer).
    @inlinable public static func distance(from b: UInt16, to a: UInt16) -> Int {
        Int(Int16(bitPattern: a &- b))
    }

    /// Signed distance from `b` to `a` in 32-bit serial order.
    @inlinable public static func distance(from b: UInt32, to a: UInt32) -> Int64 {
        Int64(Int32(bitPattern: a &- b))
    }
}

/// Extends a wrapping 16-bit sequence number to a monotonically increasing 64-bit one
/// (RFC 3550 §A.1's cycle counting): feed every received number; out-of-order packets
/// from the previous cycle map below the current one.
public struct SequenceUnwrapper: Sendable {
    private var last: Int64?

    public init() {}

    public mutating func unwrap(_ value: UInt16) -> Int64 {
        guard let last else {
            self.last = Int64(value)
            return Int64(value)
        }
        let lastLow = UInt16(truncatingIfNeeded: last)
        let extended = last + Int64(SerialNumber.distance(from: lastLow, to: value))
        if extended > last { self.last = extended }
        return extended
    }
}
