/// Unpadded base64url (RFC 4648 §5) as JWS uses it (RFC 7515 §2). Pure: no Foundation, no I/O.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes without `=` padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = bytes.withContiguousStorageIfAvailable { Array($0) } ?? Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out.append(alphabet[Int((n >> 18) & 63)]); out.append(alphabet[Int((n >> 12) & 63)])
            out.append(alphabet[Int((n >> 6) & 63)]); out.append(alphabet[Int(n & 63)])
            i += 3
        }
        switch input.count - i {
        case 1:
            let n = UInt32(input[i]) << 16
            out.append(alphabet[Int((n >> 18) & 63)]); out.append(alphabet[Int((n >> 12) & 63)])
        case 2:
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out.append(alphabet[Int((n >> 18) & 63)]); out.append(alphabet[Int((n >> 12) & 63)])
            out.append(alphabet[Int((n >> 6) & 63)])
        default: break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes strictly: no padding, no whitespace, no characters outside the base64url alphabet, and
    /// the unused low bits of the last character must be zero (canonical encoding, RFC 4648 §3.5).
    /// Returns nil on any violation.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        decode(utf8: Array(text.utf8))
    }

    /// Strict decoding of the UTF-8 bytes of a base64url string; see `decode(_:)`.
    public static func decode(utf8 chars: some Collection<UInt8>) -> [UInt8]? {
        // One generic call hands over contiguous bytes; the loop below then runs on a concrete
        // buffer instead of through the collection's witness table per character.
        if let decoded = chars.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return decoded }
        return Array(chars).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    private static func decode(buffer chars: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = chars.count
        if count % 4 == 1 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        for c in chars {
            guard let v = value(c) else { return nil }
            acc = (acc << 6) | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                acc &= (1 << UInt32(bits)) - 1
            }
        }
        if acc != 0 { return nil }  // non-canonical trailing bits
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
