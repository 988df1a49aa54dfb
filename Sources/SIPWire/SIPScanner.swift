/// A cursor over the bytes of one header value (already unfolded: folds are single SPs), with the
/// lexical pieces of RFC 3261 §25.1: tokens, quoted strings, separators with surrounding LWS.
/// Every read checks bounds; nothing recurses.
struct SIPScanner {
    let bytes: [UInt8]
    private(set) var index = 0

    init(_ text: some StringProtocol) { bytes = Array(text.utf8) }

    var isAtEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
    /// The unread text.
    var rest: String { String(decoding: bytes[min(index, bytes.count)...], as: UTF8.self) }

    /// Skips SP and HTAB (LWS after unfolding).
    mutating func skipWhitespace() {
        while index < bytes.count, SIPCharacters.isWhitespace(bytes[index]) { index += 1 }
    }

    /// Consumes `byte` if it is next, without skipping whitespace.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// Consumes `SWS byte SWS` (RFC 3261's SEMI, COMMA, EQUAL, SLASH, COLON) if `byte` is next
    /// after optional whitespace; otherwise leaves the cursor where it was.
    mutating func separator(_ byte: UInt8) -> Bool {
        let start = index
        skipWhitespace()
        guard consume(byte) else {
            index = start
            return false
        }
        skipWhitespace()
        return true
    }

    /// A run of bytes from `set` (nil when empty).
    mutating func run(_ set: SIPCharacters.Set) -> String? {
        let start = index
        while index < bytes.count, set.contains(bytes[index]) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// A `token`.
    mutating func token() -> String? { run(SIPCharacters.token) }

    /// A `quoted-string` (RFC 3261 §25.1) starting at the cursor; returns its content with
    /// `quoted-pair`s resolved. Nil (cursor unchanged) if no well-formed quoted string is next.
    /// `quoted-pair` excludes CR and LF; `qdtext` excludes them and control characters except HTAB.
    mutating func quotedString() -> String? {
        let start = index
        guard consume(UInt8(ascii: "\"")) else { return nil }
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count, bytes[index] != 0x0D, bytes[index] != 0x0A, bytes[index] <= 0x7F else {
                    index = start
                    return nil
                }
                out.append(bytes[index])
                index += 1
            case 0x00...0x08, 0x0A...0x1F, 0x7F:
                index = start
                return nil
            default:
                out.append(byte)
            }
        }
        index = start
        return nil
    }

    /// The bytes up to (not including) the first of `stops`, or to the end.
    mutating func until(_ stops: UInt8...) -> String {
        let start = index
        while index < bytes.count, !stops.contains(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }
}

/// Quoting for values written back into header fields.
enum SIPQuoting {
    /// `text` as a `quoted-string` (RFC 3261 §25.1): `"`, `\` and the control characters
    /// `qdtext` excludes become `quoted-pair`s, so what a parser decoded (RFC 4475 §3.1.1.2's
    /// `"BEL:\<BEL>"`) is written back parseable. CR and LF have no quoted form and become SP.
    static func quote(_ text: some StringProtocol) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x0D:
                out.unicodeScalars.append(" ")
                continue
            case 0x22, 0x5C, 0x00...0x08, 0x0B...0x1F, 0x7F:
                out.unicodeScalars.append("\\")
            default:
                break
            }
            out.unicodeScalars.append(scalar)
        }
        out += "\""
        return out
    }
}
