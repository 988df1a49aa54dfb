/// HPACK's primitive types (RFC 7541 §5): prefixed integers and string literals.
enum HPACKPrimitives {
    /// The largest integer a decoder accepts: enough for any index, length or table size in use.
    static let maxInteger = 1 << 30

    /// Reads an integer with an N-bit prefix (§5.1) starting at `index`; the bits above the prefix
    /// in the first octet are ignored.
    static func readInteger(_ block: UnsafeRawBufferPointer, at index: inout Int, prefixBits: Int) throws(HPACKError) -> Int {
        guard index < block.count else { throw .truncated }
        let mask = (1 << prefixBits) - 1
        var value = Int(block[index]) & mask
        index += 1
        guard value == mask else { return value }
        var shift = 0
        while true {
            guard index < block.count else { throw .truncated }
            let byte = Int(block[index])
            index += 1
            guard shift <= 28 else { throw .integerOverflow }
            value += (byte & 0x7F) << shift
            guard value <= maxInteger else { throw .integerOverflow }
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// Appends `value` with an N-bit prefix, OR-ing `flags` into the first octet (§5.1).
    static func writeInteger(_ value: Int, prefixBits: Int, flags: UInt8, into out: inout [UInt8]) {
        let mask = (1 << prefixBits) - 1
        var value = max(value, 0)
        if value < mask {
            out.append(flags | UInt8(value))
            return
        }
        out.append(flags | UInt8(mask))
        value -= mask
        while value >= 128 {
            out.append(UInt8(value % 128 + 128))
            value /= 128
        }
        out.append(UInt8(value))
    }

    /// Reads a string literal (§5.2), Huffman-decoding it when its H bit is set. Returns the octets.
    static func readString(_ block: UnsafeRawBufferPointer, at index: inout Int) throws(HPACKError) -> [UInt8] {
        guard index < block.count else { throw .truncated }
        let huffman = block[index] & 0x80 != 0
        let length = try readInteger(block, at: &index, prefixBits: 7)
        guard length <= block.count - index else { throw .truncated }
        let raw = UnsafeRawBufferPointer(rebasing: block[index..<index + length])
        index += length
        if !huffman { return Array(raw) }
        var out: [UInt8] = []
        try HPACKHuffman.decode(raw, into: &out)
        return out
    }

    /// Appends a string literal, Huffman-coded when `huffman` is true.
    static func writeString(_ bytes: some Collection<UInt8>, huffman: Bool, into out: inout [UInt8]) {
        if huffman {
            writeInteger(HPACKHuffman.encodedLength(bytes), prefixBits: 7, flags: 0x80, into: &out)
            HPACKHuffman.encode(bytes, into: &out)
        } else {
            writeInteger(bytes.count, prefixBits: 7, flags: 0, into: &out)
            out.append(contentsOf: bytes)
        }
    }
}
