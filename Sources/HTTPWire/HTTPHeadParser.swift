/// The start line and header fields of a message (RFC 9112 §2.1), before body framing is decided.
struct HTTPHead: Sendable {
    /// The start line split at its first two spaces; the third part may contain spaces (reason phrase).
    var parts: [String]
    var headers: HTTPHeaders
}

/// Finds and parses a message head in a buffer. Accepts CRLF or bare LF line ends (RFC 9112 §2.2) and
/// ignores empty lines before the start line.
struct HTTPHeadParser: Sendable {
    /// Bytes already searched for the end of the head, so each read rescans only new input.
    private var scanned = 0

    /// Parses and consumes a head if one is complete; nil if more bytes are needed.
    mutating func parse(_ buffer: inout HTTPInputBuffer, limits: HTTPLimits) throws(HTTPParseError) -> HTTPHead? {
        // RFC 9112 §2.2: skip CRLFs that precede the start line.
        while !buffer.isEmpty && (buffer[0] == 0x0D || buffer[0] == 0x0A) { buffer.consume(1); scanned = 0 }
        guard let end = findEnd(buffer, limit: limits.maxHeaderBytes) else {
            if buffer.count > limits.maxHeaderBytes { throw .headersTooLarge }
            return nil
        }
        scanned = 0
        let head = buffer.take(end)
        return try Self.parseHead(head, limits: limits)
    }

    /// Length of the head including its final empty line, if the buffer holds all of it.
    private mutating func findEnd(_ buffer: HTTPInputBuffer, limit: Int) -> Int? {
        var from = max(0, scanned - 2)
        let window = min(buffer.count, limit)
        while let lf = buffer.firstIndex(of: 0x0A, from: from, limit: window) {
            if lf >= 1 && buffer[lf - 1] == 0x0A { return lf + 1 }
            if lf >= 2 && buffer[lf - 1] == 0x0D && buffer[lf - 2] == 0x0A { return lf + 1 }
            from = lf + 1
        }
        scanned = window
        return nil
    }

    static func parseHead(_ bytes: ArraySlice<UInt8>, limits: HTTPLimits) throws(HTTPParseError) -> HTTPHead {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        for i in bytes.indices where bytes[i] == 0x0A {
            var line = bytes[lineStart..<i]
            if line.last == 0x0D { line = line.dropLast() }
            lines.append(line)
            lineStart = i + 1
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { throw .badStartLine }
        guard lines.count - 1 <= limits.maxHeaderCount else { throw .headersTooLarge }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let (name, value) = try parseField(line)
            headers.add(name, value)
        }
        return HTTPHead(parts: try splitStartLine(first), headers: headers)
    }

    /// Splits at the first two single spaces (RFC 9112 §3, §4); no part but the last may be empty.
    private static func splitStartLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> [String] {
        for c in line where c < 0x20 && c != 0x09 || c == 0x7F { throw .badStartLine }
        guard let sp1 = line.firstIndex(of: 0x20) else { throw .badStartLine }
        let rest = line[(sp1 + 1)...]
        guard let sp2 = rest.firstIndex(of: 0x20) else { throw .badStartLine }
        let a = line[..<sp1], b = line[(sp1 + 1)..<sp2], c = line[(sp2 + 1)...]
        guard !a.isEmpty, !b.isEmpty else { throw .badStartLine }
        return [String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self),
                String(decoding: c, as: UTF8.self)]
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5). Obsolete folding is rejected (§5.2).
    private static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> (String, String) {
        guard let colon = line.firstIndex(of: 0x3A) else { throw .badHeader }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenChar) else { throw .badHeader }
        var value = line[(colon + 1)...]
        while let f = value.first, f == 0x20 || f == 0x09 { value = value.dropFirst() }
        while let l = value.last, l == 0x20 || l == 0x09 { value = value.dropLast() }
        for c in value where (c < 0x20 && c != 0x09) || c == 0x7F { throw .badHeader }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }
}

/// `tchar` (RFC 9110 §5.6.2).
func isTokenChar(_ c: UInt8) -> Bool {
    switch c {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
         UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
         UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
    default: false
    }
}
