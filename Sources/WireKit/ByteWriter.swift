/// Appends big-endian (network order) values to a byte array. Reserve capacity up front (or reuse
/// the writer across packets with `reset()`) to avoid allocation on hot paths.
public struct ByteWriter {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public var count: Int { bytes.count }

    /// Empties the writer but keeps its storage.
    public mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    public mutating func writeUInt8(_ v: UInt8) { bytes.append(v) }

    public mutating func writeUInt16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    public mutating func writeUInt24(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    public mutating func writeUInt32(_ v: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    public mutating func writeUInt64(_ v: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    public mutating func writeBytes(_ v: some Sequence<UInt8>) { bytes.append(contentsOf: v) }

    public mutating func writeZeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }

    /// Overwrites a 16-bit value at `offset` (for lengths known only after the body is written).
    public mutating func setUInt16(_ v: UInt16, at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: v >> 8)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: v)
    }

    public mutating func setUInt32(_ v: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: v >> UInt32(24 - 8 * i)) }
    }

    /// Takes the bytes out, leaving the writer empty.
    public mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
