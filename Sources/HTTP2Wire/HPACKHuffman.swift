/// The static Huffman code of HPACK (RFC 7541 §5.2, Appendix B).
public enum HPACKHuffman {
    /// The end-of-string symbol; it must never appear in decoded data.
    static let eos = 256

    /// Canonical-code decoding tables, built once from `codes`: for each bit length, the first code
    /// of that length, how many codes have it, and where its symbols start in `symbols`.
    private struct Canonical: Sendable {
        var first = [UInt32](repeating: 0, count: 31)
        var count = [UInt32](repeating: 0, count: 31)
        var offset = [Int](repeating: 0, count: 31)
        var symbols: [UInt16] = []
        let shortest: Int

        init() {
            let order = (0..<HPACKHuffman.codes.count).sorted {
                let a = HPACKHuffman.codes[$0], b = HPACKHuffman.codes[$1]
                return a.length != b.length ? a.length < b.length : $0 < $1
            }
            symbols = order.map { UInt16($0) }
            for (position, symbol) in order.enumerated() {
                let (code, length) = HPACKHuffman.codes[symbol]
                let l = Int(length)
                if count[l] == 0 {
                    first[l] = code
                    offset[l] = position
                }
                count[l] += 1
            }
            shortest = Int(HPACKHuffman.codes.map(\.length).min() ?? 5)
        }
    }

    private static let canonical = Canonical()

    /// The number of octets `bytes` take when Huffman-coded.
    public static func encodedLength(_ bytes: some Collection<UInt8>) -> Int {
        var bits = 0
        for byte in bytes { bits += Int(codes[Int(byte)].length) }
        return (bits + 7) / 8
    }

    /// Appends the Huffman coding of `bytes`, padded with the most significant bits of EOS (§5.2).
    public static func encode(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        var accumulator: UInt64 = 0
        var bits = 0
        for byte in bytes {
            let (code, length) = codes[Int(byte)]
            accumulator = accumulator << UInt64(length) | UInt64(code)
            bits += Int(length)
            while bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt64(bits)))
            }
            accumulator &= (1 << UInt64(bits)) - 1
        }
        if bits > 0 {
            let padding = 8 - bits
            out.append(UInt8(truncatingIfNeeded: accumulator << UInt64(padding) | ((1 << UInt64(padding)) - 1)))
        }
    }

    /// Decodes a Huffman-coded string, appending the octets to `out`. Throws `.invalidHuffman` for
    /// padding longer than seven bits or not all ones, and for an EOS symbol (§5.2).
    public static func decode(_ input: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(HPACKError) {
        let table = canonical
        out.reserveCapacity(out.count + input.count * 8 / 5)
        var code: UInt32 = 0
        var length = 0
        for byte in input {
            for shift in stride(from: 7, through: 0, by: -1) {
                code = code << 1 | UInt32(byte >> UInt8(shift) & 1)
                length += 1
                guard length >= table.shortest else { continue }
                guard length <= 30 else { throw .invalidHuffman }
                let count = table.count[length]
                if count > 0, code >= table.first[length], code - table.first[length] < count {
                    let symbol = table.symbols[table.offset[length] + Int(code - table.first[length])]
                    guard Int(symbol) != eos else { throw .invalidHuffman }
                    out.append(UInt8(truncatingIfNeeded: symbol))
                    code = 0
                    length = 0
                }
            }
        }
        // §5.2: padding is at most 7 bits, all ones (a prefix of EOS).
        guard length <= 7, code == (UInt32(1) << UInt32(length)) - 1 else { throw .invalidHuffman }
    }

    /// Decodes a Huffman-coded byte array (convenience for tests and tools).
    public static func decode(_ input: [UInt8]) throws(HPACKError) -> [UInt8] {
        var out: [UInt8] = []
        var failure: HPACKError?
        input.withUnsafeBytes { raw in
            do throws(HPACKError) { try decode(raw, into: &out) } catch { failure = error }
        }
        if let failure { throw failure }
        return out
    }
}
