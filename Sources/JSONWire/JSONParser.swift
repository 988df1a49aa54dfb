/// Why a JSON text was rejected, with the byte offset where parsing stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, one case per rule of RFC 8259 (and of this parser's limits) that the input broke.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case badExponent = "bad exponent"
        case badFraction = "bad fraction"
        case badHexDigit = "bad hex digit"
        case badLowSurrogate = "bad low surrogate"
        case badNumber = "bad number"
        case controlCharacterInString = "control character in string"
        case duplicateMemberName = "duplicate member name"
        case expectedColon = "expected ':'"
        case expectedCommaOrBrace = "expected ',' or '}'"
        case expectedCommaOrBracket = "expected ',' or ']'"
        case expectedMemberName = "expected member name"
        case invalidEscape = "invalid escape"
        case invalidLiteral = "invalid literal"
        case invalidScalar = "invalid scalar"
        case invalidUTF8InString = "invalid UTF-8 in string"
        case loneHighSurrogate = "lone high surrogate"
        case loneLowSurrogate = "lone low surrogate"
        case nestingTooDeep = "nesting too deep"
        case numberOutOfRange = "number out of range"
        case shortUnicodeEscape = "short \\u escape"
        case trailingData = "trailing data"
        case unexpectedCharacter = "unexpected character"
        case unexpectedEndOfInput = "unexpected end of input"
        case unterminatedEscape = "unterminated escape"
        case unterminatedString = "unterminated string"
    }

    public let kind: Kind
    /// Where, in bytes from the start of the input.
    public let offset: Int
    /// The kind in words.
    public var reason: String { kind.rawValue }
    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259) strictly: UTF-8 only, no trailing data, no duplicate member
    /// names (RFC 7515 §5.2 lets a JWS parser reject them, and we do), no lone surrogates, nesting at
    /// most `maxDepth`. Never traps on any input; suitable for fuzzing.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 32) throws(JSONParseError) -> JSONValue {
        let array = bytes.withContiguousStorageIfAvailable { Array($0) } ?? Array(bytes)
        var parser = JSONParser(bytes: array, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error(.trailingData) }
        return value
    }
}

/// A recursive-descent parser over bytes. Recursion depth is bounded by `maxDepth`.
struct JSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func error(_ kind: JSONParseError.Kind) -> JSONParseError { JSONParseError(kind: kind, offset: index) }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let c = peek, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { index += 1 }
    }

    mutating func expect(_ literal: String) throws(JSONParseError) {
        for c in literal.utf8 {
            guard peek == c else { throw error(.invalidLiteral) }
            index += 1
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let c = peek else { throw error(.unexpectedEndOfInput) }
        switch c {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth + 1))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error(.unexpectedCharacter)
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONObject {
        guard depth <= maxDepth else { throw error(.nestingTooDeep) }
        index += 1  // {
        var object = JSONObject()
        skipWhitespace()
        if peek == UInt8(ascii: "}") { index += 1; return object }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error(.expectedMemberName) }
            let key = try parseString()
            guard object[key] == nil else { throw error(.duplicateMemberName) }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error(.expectedColon) }
            index += 1
            skipWhitespace()
            object[key] = try parseValue(depth: depth)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return object
            default: throw error(.expectedCommaOrBrace)
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> [JSONValue] {
        guard depth <= maxDepth else { throw error(.nestingTooDeep) }
        index += 1  // [
        var items: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") { index += 1; return items }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return items
            default: throw error(.expectedCommaOrBracket)
            }
        }
    }

    /// RFC 8259 §7: escapes, no raw control characters, valid UTF-8, paired surrogates.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw error(.unterminatedString) }
            index += 1
            switch c {
            case UInt8(ascii: "\""):
                let s = String(decoding: out, as: UTF8.self)
                // String(decoding:) repairs bad UTF-8 with U+FFFD; a changed byte count means it was invalid.
                guard s.utf8.elementsEqual(out) else { throw error(.invalidUTF8InString) }
                return s
            case UInt8(ascii: "\\"):
                try parseEscape(into: &out)
            case 0x00..<0x20:
                throw error(.controlCharacterInString)
            default:
                out.append(c)
            }
        }
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(JSONParseError) {
        guard let e = peek else { throw error(.unterminatedEscape) }
        index += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard peek == UInt8(ascii: "\\") else { throw error(.loneHighSurrogate) }
                index += 1
                guard peek == UInt8(ascii: "u") else { throw error(.loneHighSurrogate) }
                index += 1
                let low = UInt32(try parseHex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw error(.badLowSurrogate) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error(.loneLowSurrogate)
            }
            guard let u = Unicode.Scalar(scalar) else { throw error(.invalidScalar) }
            out.append(contentsOf: Array(String(Character(u)).utf8))
        default:
            throw error(.invalidEscape)
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        var v: UInt16 = 0
        for _ in 0..<4 {
            guard let c = peek else { throw error(.shortUnicodeEscape) }
            let d: UInt16
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt16(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt16(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt16(c - UInt8(ascii: "A") + 10)
            default: throw error(.badHexDigit)
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    /// RFC 8259 §6 grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, isDigit(first) else { throw error(.badNumber) }
        index += 1
        if first != UInt8(ascii: "0") { while let c = peek, isDigit(c) { index += 1 } }
        if peek == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let c = peek, isDigit(c) else { throw error(.badFraction) }
            while let c = peek, isDigit(c) { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard let c = peek, isDigit(c) else { throw error(.badExponent) }
            while let c = peek, isDigit(c) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let n = Int64(text) { return .integer(n) }
        guard let d = Double(text), d.isFinite else { throw error(.numberOutOfRange) }
        return .double(d)
    }

    func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
}
