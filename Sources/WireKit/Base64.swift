/// Standard base64 with padding (RFC 4648 §4): WebSocket keys (RFC 6455 §4.2.2) and TURN REST
/// passwords use it. (JWTs use base64url without padding: `ParleyCrypto.Base64URL`.)
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decoded length of a well-formed padded base64 string, or nil if it is not one.
    public static func decodedCount(_ text: String) -> Int? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var padding = 0
        for (i, c) in chars.enumerated() {
            if c == UInt8(ascii: "=") {
                guard i >= chars.count - 2 else { return nil }
                padding += 1
            } else {
                guard padding == 0, alphabet.contains(c) else { return nil }
            }
        }
        return chars.count / 4 * 3 - padding
    }
}

extension Base64 {
    /// Decodes standard base64 (RFC 4648 §4). With `requirePadding` false a final group may omit
    /// its `=` (as some SDES implementations write keys). No whitespace; nil on any other character,
    /// misplaced padding, or non-zero unused bits.
    public static func decode(_ text: some StringProtocol, requirePadding: Bool = true) -> [UInt8]? {
        var chars = Array(text.utf8)
        if !requirePadding, chars.count % 4 != 0 {
            chars += repeatElement(UInt8(ascii: "="), count: 4 - chars.count % 4)
        }
        guard let count = decodedCount(String(decoding: chars, as: UTF8.self)) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var acc: UInt32 = 0, bits = 0
        for c in chars where c != UInt8(ascii: "=") {
            guard let v = value(c) else { return nil }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                acc &= (1 << UInt32(bits)) - 1
            }
        }
        guard acc == 0, out.count == count else { return nil }
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
