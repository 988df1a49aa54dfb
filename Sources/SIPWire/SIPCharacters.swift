import WireKit

/// The character classes of the SIP grammar (RFC 3261 §25.1), as lookup tables over bytes.
/// Bytes ≥ 0x80 (UTF-8) belong to none of them; quoted strings and reason phrases take them.
enum SIPCharacters {
    /// A 256-entry membership table.
    struct Set: Sendable {
        private let table: [Bool]

        init(_ members: String, alphanumerics: Bool = true) {
            var table = [Bool](repeating: false, count: 256)
            if alphanumerics {
                for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = true }
                for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = true }
                for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = true }
            }
            for byte in members.utf8 { table[Int(byte)] = true }
            self.table = table
        }

        @inline(__always) func contains(_ byte: UInt8) -> Bool { table[Int(byte)] }

        /// Whether every byte of `text` is a member (false for empty text).
        func containsAll(_ text: some StringProtocol) -> Bool {
            !text.utf8.isEmpty && text.utf8.allSatisfy { contains($0) }
        }
    }

    /// `token` (RFC 3261 §25.1): alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~".
    static let token = Set("-.!%*_+`'~")
    /// `word`, the characters of a Call-ID half (RFC 3261 §25.1).
    static let word = Set("-.!%*_+`'~()<>:\\\"/[]?{}")
    /// `unreserved` = alphanum / mark (RFC 3261 §25.1).
    static let unreserved = Set("-_.!~*'()")
    /// What a URI `user` may hold unescaped: unreserved / user-unreserved.
    static let user = Set("-_.!~*'()&=+$,;?/")
    /// What a URI `password` may hold unescaped: unreserved / "&" / "=" / "+" / "$" / ",".
    static let password = Set("-_.!~*'()&=+$,")
    /// `paramchar` without escapes: param-unreserved / unreserved.
    static let parameter = Set("[]/:&+$-_.!~*'()")
    /// `hname`/`hvalue` characters without escapes: hnv-unreserved / unreserved.
    static let header = Set("[]/?:+$-_.!~*'()")
    /// `hostname` characters (labels and dots), RFC 3261 §25.1.
    static let hostname = Set("-.")
    /// Characters of an absoluteURI's opaque part (`uric`, RFC 2396): reserved / unreserved.
    static let uric = Set(";/?:@&=+$,-_.!~*'()%[]")
    /// Characters of a tel URI (RFC 3966 §3) after the scheme, before decoding.
    static let tel = Set("-.()+*#;=/:%&[]$!~'_,?")
    /// Hexadecimal digits.
    static let hex = Set("ABCDEFabcdef0123456789", alphanumerics: false)
    /// Decimal digits.
    static let digit = Set("0123456789", alphanumerics: false)

    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The value of a hexadecimal digit.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A non-empty run of ASCII digits as an integer, nil on any other byte or on overflow.
    static func decimal<T: FixedWidthInteger & UnsignedInteger>(_ text: some StringProtocol, as type: T.Type = T.self) -> T? {
        ASCIIDecimal.parse(text.utf8, as: T.self)
    }

    /// ASCII case-insensitive equality.
    static func equalFold(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        for (p, q) in zip(x, y) where p != q {
            guard lower(p) == lower(q) else { return false }
        }
        return true
    }

    @inline(__always) static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// ASCII lowercase (non-ASCII bytes unchanged).
    static func lowercased(_ text: some StringProtocol) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return String(text) }
        // Lowercasing ASCII keeps UTF-8 valid, so the bytes are written in place (no array).
        return String(unsafeUninitializedCapacity: utf8.count) { buffer in
            var count = 0
            for byte in utf8 {
                buffer[count] = lower(byte)
                count += 1
            }
            return count
        }
    }
}
