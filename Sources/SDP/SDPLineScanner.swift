/// One `<type>=<value>` line of a description.
struct SDPLine {
    /// The 1-based line number.
    var number: Int
    /// The type letter, `a`...`z`.
    var type: Character
    /// The text after `=`.
    var value: Substring
}

/// Splits input into checked lines before any field parsing, refusing oversized or non-text input
/// cheaply (RFC 8866 §5: `<type>=<value>` lines ended by CRLF; we also accept bare LF, as
/// Chromium and Firefox do).
enum SDPLineScanner {
    /// Validates the bytes as UTF-8 (JSEP descriptions are UTF-8, RFC 8829 §5.8) and scans them.
    static func lines(utf8 bytes: [UInt8], limits: SDPLimits) throws(SDPParseError) -> [SDPLine] {
        guard bytes.count <= limits.maxBytes else { throw SDPParseError(line: 0, reason: .inputTooLarge(limit: limits.maxBytes)) }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: break decoding
            case .error: throw SDPParseError(line: 0, reason: .invalidUTF8)
            }
        }
        return try lines(validated: bytes, limits: limits)
    }

    /// Scans bytes already known to be valid UTF-8.
    static func lines(validated bytes: [UInt8], limits: SDPLimits) throws(SDPParseError) -> [SDPLine] {
        guard bytes.count <= limits.maxBytes else { throw SDPParseError(line: 0, reason: .inputTooLarge(limit: limits.maxBytes)) }
        var newlines = 0
        for byte in bytes where byte == 0x0A { newlines += 1 }
        let lineCount = newlines + (bytes.last == 0x0A || bytes.isEmpty ? 0 : 1)
        guard lineCount <= limits.maxLines else { throw SDPParseError(line: 0, reason: .tooManyLines(limit: limits.maxLines)) }

        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(newlines + 1)
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            ranges.append(start..<index)
            start = index + 1
        }
        if start < bytes.count { ranges.append(start..<bytes.count) }
        // Empty lines at the end (a final CRLF, or several) are tolerated; anywhere else they are
        // not `<type>=<value>` lines.
        while let last = ranges.last, isBlank(bytes[last]) { ranges.removeLast() }
        guard !ranges.isEmpty else { throw SDPParseError(line: 0, reason: .empty) }

        var out: [SDPLine] = []
        out.reserveCapacity(ranges.count)
        for (offset, range) in ranges.enumerated() {
            let number = offset + 1
            var line = bytes[range]
            if line.last == 0x0D { line = line.dropLast() }
            // `byte-string` excludes NUL, CR and LF (RFC 8866 §9).
            guard !line.contains(0x00), !line.contains(0x0D) else {
                throw SDPParseError(line: number, reason: .invalidCharacter)
            }
            guard line.count >= 2, let type = line.first, type >= 0x61, type <= 0x7A,
                  line[line.startIndex + 1] == UInt8(ascii: "=") else {
                throw SDPParseError(line: number, reason: .malformedLine)
            }
            let value = String(decoding: line.dropFirst(2), as: UTF8.self)
            out.append(SDPLine(number: number, type: Character(Unicode.Scalar(type)), value: Substring(value)))
        }
        return out
    }

    private static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        line.isEmpty || (line.count == 1 && line.first == 0x0D)
    }
}
