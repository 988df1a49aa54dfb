/// `%HH` escapes in URI components (RFC 3261 §19.1.2, §25.1 `escaped`). User, password, URI
/// parameters and URI headers compare unescaped (RFC 3261 §19.1.4), so the parser decodes them
/// and the serializer escapes what the component's grammar does not allow literally.
enum SIPEscaping {
    /// Decodes `%HH` escapes. A `%` not followed by two hex digits is an error: RFC 3261 has no
    /// literal `%` outside `escaped` in these components. Decoded bytes that are not UTF-8 are
    /// kept as U+FFFD; `%00` decodes to NUL (RFC 4475 §3.1.1.4).
    static func decode(_ text: some StringProtocol, allowed: SIPCharacters.Set) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(SIPCharacters.hexValue),
                      let low = iterator.next().flatMap(SIPCharacters.hexValue) else { return nil }
                out.append(high << 4 | low)
            } else {
                guard allowed.contains(byte) else { return nil }
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Escapes every byte outside `allowed` (and `%` itself) as `%HH` with uppercase hex.
    static func encode(_ text: some StringProtocol, allowed: SIPCharacters.Set) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if allowed.contains(byte) && byte != UInt8(ascii: "%") {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
