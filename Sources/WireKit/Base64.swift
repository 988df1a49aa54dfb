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
