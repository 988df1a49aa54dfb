/// Little-endian fields of the IVF container (WireKit reads network order only).
enum LittleEndian {
    /// The 16-bit value at `index`; the caller checked the bounds.
    static func u16(_ bytes: ArraySlice<UInt8>, _ index: Int) -> UInt16 {
        UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }

    static func u32(_ bytes: ArraySlice<UInt8>, _ index: Int) -> UInt32 {
        UInt32(u16(bytes, index)) | UInt32(u16(bytes, index + 2)) << 16
    }

    static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        for i in 0..<(T.bitWidth / 8) { out.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }
}
