/// Reads big-endian (network order) values from a byte buffer, never past its end.
///
/// Every read checks the remaining length first and throws `WireError.truncated` instead of
/// trapping, so parsers built on it are safe on arbitrary input.
public struct ByteReader {
    public let bytes: UnsafeRawBufferPointer
    /// Offset of the next byte to read.
    public private(set) var offset: Int

    public init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset >= bytes.count }

    @inline(__always)
    private func need(_ n: Int) throws(WireError) {
        guard n >= 0, remaining >= n else { throw .truncated(needed: n, available: remaining) }
    }

    public mutating func readUInt8() throws(WireError) -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func readUInt16() throws(WireError) -> UInt16 {
        try need(2)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// A 24-bit big-endian value (RTCP report blocks, TWCC).
    public mutating func readUInt24() throws(WireError) -> UInt32 {
        try need(3)
        defer { offset += 3 }
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    public mutating func readUInt32() throws(WireError) -> UInt32 {
        try need(4)
        defer { offset += 4 }
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(bytes[offset + i]) }
        return v
    }

    public mutating func readUInt64() throws(WireError) -> UInt64 {
        try need(8)
        defer { offset += 8 }
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(bytes[offset + i]) }
        return v
    }

    /// Copies `count` bytes out.
    public mutating func readBytes(_ count: Int) throws(WireError) -> [UInt8] {
        try need(count)
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A view of the next `count` bytes without copying; valid while `bytes` is.
    public mutating func readSlice(_ count: Int) throws(WireError) -> UnsafeRawBufferPointer {
        try need(count)
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    public mutating func skip(_ count: Int) throws(WireError) {
        try need(count)
        offset += count
    }

    /// The byte at `offset + ahead`, without consuming.
    public func peekUInt8(ahead: Int = 0) throws(WireError) -> UInt8 {
        guard ahead >= 0, remaining > ahead else { throw .truncated(needed: ahead + 1, available: remaining) }
        return bytes[offset + ahead]
    }
}
