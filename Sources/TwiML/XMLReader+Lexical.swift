/// The lexical pieces of XML 1.0: names, references, comments, CDATA, processing instructions,
/// the XML declaration, and the character check.
extension XMLReader {
    func starts(with prefix: String) -> Bool { starts(with: Array(prefix.utf8)) }

    func starts(with prefix: [UInt8]) -> Bool {
        guard bytes.count - position >= prefix.count else { return false }
        for (i, b) in prefix.enumerated() where bytes[position + i] != b { return false }
        return true
    }

    func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// Skips `S` (§2.3); returns whether anything was skipped.
    @discardableResult
    mutating func skipSpaces() -> Bool {
        let start = position
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        return position != start
    }

    /// Appends one text byte, turning CRLF and lone CR into LF (§2.11).
    mutating func appendNormalizingLineEnd(into out: inout [UInt8]) {
        let byte = bytes[position]
        position += 1
        if byte == 0x0D {
            if position < bytes.count, bytes[position] == 0x0A { position += 1 }
            out.append(0x0A)
        } else {
            out.append(byte)
        }
    }

    // MARK: - Names (§2.3)

    private func isNameStart(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b >= 0x80
    }

    private func isNameByte(_ b: UInt8) -> Bool {
        isNameStart(b) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }

    mutating func parseName() throws(TwiMLError) -> String {
        let start = position
        guard position < bytes.count, isNameStart(bytes[position]) else { throw .malformed("expected a name", at: position) }
        while position < bytes.count, isNameByte(bytes[position]) { position += 1 }
        guard position - start <= limits.maxNameBytes else {
            throw .limit("a name is longer than \(limits.maxNameBytes) bytes", at: start)
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    // MARK: - References (§4.1, §4.6)

    /// Decodes `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;`, `&#NN;` or `&#xHH;` at the cursor.
    mutating func readReference(into out: inout [UInt8]) throws(TwiMLError) {
        let start = position
        position += 1  // "&"
        var body: [UInt8] = []
        while position < bytes.count, bytes[position] != UInt8(ascii: ";") {
            guard body.count < 10, !isSpace(bytes[position]), bytes[position] != UInt8(ascii: "&"),
                  bytes[position] != UInt8(ascii: "<") else {
                throw .malformed("'&' must start an entity or character reference ending in ';'", at: start)
            }
            body.append(bytes[position])
            position += 1
        }
        guard position < bytes.count else { throw .malformed("unterminated reference", at: start) }
        position += 1  // ";"
        switch String(decoding: body, as: UTF8.self) {
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "amp": out.append(UInt8(ascii: "&"))
        case "apos": out.append(UInt8(ascii: "'"))
        case "quot": out.append(UInt8(ascii: "\""))
        case let name where name.hasPrefix("#"):
            guard let scalar = Self.characterReference(name.dropFirst()) else {
                throw .malformed("invalid character reference &\(name);", at: start)
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        case let name:
            throw .malformed("unknown entity &\(name);", at: start)
        }
    }

    /// `#NN` or `#xHH` (without `#`) as a scalar allowed by the `Char` production (§2.2).
    static func characterReference(_ digits: Substring) -> Unicode.Scalar? {
        let hex = digits.hasPrefix("x")
        let number = hex ? digits.dropFirst() : digits
        guard !number.isEmpty, number.count <= 8, let value = UInt32(number, radix: hex ? 16 : 10),
              number.allSatisfy({ $0.isHexDigit && (hex || $0.isNumber) }),
              isXMLChar(value), let scalar = Unicode.Scalar(value) else { return nil }
        return scalar
    }

    /// The `Char` production: tab, LF, CR, and U+0020 up, minus surrogates, U+FFFE and U+FFFF.
    static func isXMLChar(_ v: UInt32) -> Bool {
        switch v {
        case 0x09, 0x0A, 0x0D: true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    // MARK: - Comments, CDATA, processing instructions (§2.5, §2.6, §2.7)

    mutating func skipComment() throws(TwiMLError) {
        let start = position
        position += 4  // "<!--"
        while position < bytes.count {
            if starts(with: "--") {
                guard starts(with: "-->") else { throw .malformed("'--' is not allowed inside a comment", at: position) }
                position += 3
                return
            }
            position += 1
        }
        throw .malformed("comment is not closed", at: start)
    }

    mutating func readCDATA(into out: inout [UInt8]) throws(TwiMLError) {
        let start = position
        position += 9  // "<![CDATA["
        while position < bytes.count {
            if starts(with: "]]>") {
                position += 3
                return
            }
            appendNormalizingLineEnd(into: &out)
            guard out.count <= limits.maxTextBytes else {
                throw .limit("a text node is longer than \(limits.maxTextBytes) bytes", at: start)
            }
        }
        throw .malformed("CDATA section is not closed", at: start)
    }

    mutating func skipProcessingInstruction() throws(TwiMLError) {
        let start = position
        position += 2  // "<?"
        let target = try parseName()
        guard target.lowercased() != "xml" else {
            throw .malformed("the XML declaration is only allowed at the very start", at: start)
        }
        guard skipSpaces() || starts(with: "?>") else { throw .malformed("malformed processing instruction", at: start) }
        while position < bytes.count {
            if starts(with: "?>") {
                position += 2
                return
            }
            position += 1
        }
        throw .malformed("processing instruction is not closed", at: start)
    }

    /// `<?xml version="1.x" encoding="…" standalone="yes|no"?>` (§2.8, §4.3.3). Only UTF-8 (or its
    /// ASCII subset) is accepted as the encoding.
    mutating func parseXMLDeclaration() throws(TwiMLError) {
        let start = position
        position += 5  // "<?xml"
        var seen: [String] = []
        while true {
            let hadSpace = skipSpaces()
            if starts(with: "?>") {
                position += 2
                break
            }
            guard hadSpace, position < bytes.count else { throw .malformed("malformed XML declaration", at: position) }
            let nameStart = position
            let name = try parseName()
            skipSpaces()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                throw .malformed("malformed XML declaration", at: position)
            }
            position += 1
            skipSpaces()
            let value = try parseAttributeValue(named: name)
            let order = ["version", "encoding", "standalone"]
            guard let rank = order.firstIndex(of: name), seen.allSatisfy({ order.firstIndex(of: $0)! < rank }),
                  name == "version" || !seen.isEmpty else {
                throw .malformed("unexpected '\(name)' in the XML declaration", at: nameStart)
            }
            seen.append(name)
            switch name {
            case "version":
                guard value.hasPrefix("1."), value.count > 2, value.dropFirst(2).allSatisfy(\.isASCII),
                      value.dropFirst(2).allSatisfy(\.isNumber) else {
                    throw .malformed("unsupported XML version \(value)", at: nameStart)
                }
            case "encoding":
                guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(value.lowercased()) else {
                    throw .malformed("unsupported encoding \(value); TwiML must be UTF-8", at: nameStart)
                }
            default:
                guard value == "yes" || value == "no" else { throw .malformed("standalone must be yes or no", at: nameStart) }
            }
        }
        guard seen.first == "version" else { throw .malformed("the XML declaration needs a version", at: start) }
    }

    // MARK: - Characters (§2.2)

    /// Checks that `bytes` from `start` are well-formed UTF-8 (RFC 3629) made of XML `Char`s.
    static func validateCharacters(_ bytes: [UInt8], from start: Int) throws(TwiMLError) {
        var i = start
        while i < bytes.count {
            let lead = bytes[i]
            if lead < 0x80 {
                guard lead >= 0x20 || lead == 0x09 || lead == 0x0A || lead == 0x0D else {
                    throw .malformed("control character 0x\(String(lead, radix: 16)) is not allowed in XML", at: i)
                }
                i += 1
                continue
            }
            let width: Int, minimum: UInt32
            var value: UInt32
            switch lead {
            case 0xC2...0xDF: (width, minimum, value) = (2, 0x80, UInt32(lead & 0x1F))
            case 0xE0...0xEF: (width, minimum, value) = (3, 0x800, UInt32(lead & 0x0F))
            case 0xF0...0xF4: (width, minimum, value) = (4, 0x10000, UInt32(lead & 0x07))
            default: throw .malformed("invalid UTF-8", at: i)
            }
            guard bytes.count - i >= width else { throw .malformed("truncated UTF-8 sequence", at: i) }
            for k in 1..<width {
                let b = bytes[i + k]
                guard b & 0xC0 == 0x80 else { throw .malformed("invalid UTF-8", at: i) }
                value = value << 6 | UInt32(b & 0x3F)
            }
            guard value >= minimum, value <= 0x10FFFF else { throw .malformed("invalid UTF-8", at: i) }
            guard isXMLChar(value) else {
                throw .malformed("character U+\(String(value, radix: 16, uppercase: true)) is not allowed in XML", at: i)
            }
            i += width
        }
    }
}
