import WireKit

/// Small text helpers shared by the line and attribute parsers. SDP fields are separated by a
/// single SP (RFC 8866 §9); we split on runs of SP so stray double spaces are tolerated, and
/// serialize with one SP, which re-parses to the same fields.
enum SDPText {
    /// The SP-separated fields of `text`, empty fields omitted.
    static func fields(_ text: Substring) -> [Substring] {
        text.unicodeScalars.split(separator: " ", omittingEmptySubsequences: true).map { Substring($0) }
    }

    /// The SP-separated fields of `text`, at most `maxSplits + 1` of them; the last field keeps
    /// the rest of the text (including any spaces inside it).
    static func fields(_ text: Substring, maxSplits: Int) -> [Substring] {
        text.unicodeScalars.split(separator: " ", maxSplits: maxSplits, omittingEmptySubsequences: true)
            .map { Substring($0) }
    }

    /// `text` without leading and trailing SP or HTAB.
    static func trimmed(_ text: Substring) -> Substring {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return text[text.endIndex...] }
        return Substring(scalars[first...last])
    }

    /// Splits `text` at the first `separator` scalar; the second part is nil when it is absent.
    static func splitOnce(_ text: Substring, at separator: Unicode.Scalar) -> (Substring, Substring?) {
        let scalars = text.unicodeScalars
        guard let index = scalars.firstIndex(of: separator) else { return (text, nil) }
        return (Substring(scalars[..<index]), Substring(scalars[scalars.index(after: index)...]))
    }

    /// A non-empty run of ASCII digits as `T`, or nil on any other character or on overflow.
    /// No sign, no whitespace: SDP integers are `1*DIGIT` (RFC 8866 §9).
    static func decimal<T: FixedWidthInteger & UnsignedInteger>(_ text: Substring, as type: T.Type = T.self) -> T? {
        guard text.utf8.count <= 40 else { return nil }
        return ASCIIDecimal.parse(text.utf8, as: T.self)
    }

    /// Whether every scalar is an `ice-char` (ALPHA / DIGIT / "+" / "/"), RFC 8839 §5.1.
    static func isICEChars(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2B || byte == 0x2F
        }
    }

    /// Whether the text has no SP, i.e. is a single `non-ws-string` field.
    static func isField(_ text: Substring) -> Bool {
        !text.isEmpty && !text.utf8.contains(0x20)
    }
}

extension SDPParseError {
    /// A value error for attribute `name`, reported on line 1 of a standalone value; the session
    /// parser replaces the line number with the attribute's position.
    static func invalidValue(_ name: String) -> SDPParseError {
        SDPParseError(line: 1, reason: .invalidAttributeValue(name))
    }
}
