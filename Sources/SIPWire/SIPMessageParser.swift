/// Parsing of whole messages: the start line, the header fields (unfolded, RFC 3261 §7.3.1) and
/// the body as Content-Length delimits it (RFC 3261 §18.3). Syntax only: ``SIPMessageContent/validate()``
/// then checks what a stack relies on, so a server still holds a message it can answer with 400.
extension SIPMessage {
    /// Parses one UDP datagram (RFC 3261 §18.3): without Content-Length the body is the rest of
    /// the datagram; octets past Content-Length are discarded (RFC 4475 §3.1.1.8); a
    /// Content-Length beyond the datagram is an error. CRLFs before the start line are skipped.
    public static func parse(datagram bytes: some Collection<UInt8>, limits: SIPLimits = .default) throws(SIPParseError) -> SIPMessage {
        guard bytes.count <= limits.maxMessageBytes else { throw .messageTooLarge(limit: limits.maxMessageBytes) }
        let bytes = Array(bytes)
        var start = 0
        while start + 1 < bytes.count, bytes[start] == 0x0D, bytes[start + 1] == 0x0A { start += 2 }
        guard start < bytes.count else { throw .empty }
        let headEnd: Int, bodyStart: Int
        if let end = SIPHead.endOfHead(bytes, from: start) {
            (headEnd, bodyStart) = (end, end + 4)
        } else if bytes.count - start >= 2, bytes[bytes.count - 2] == 0x0D, bytes[bytes.count - 1] == 0x0A {
            // A datagram whose last header line ends without the empty line: nothing follows.
            (headEnd, bodyStart) = (bytes.count - 2, bytes.count)
        } else {
            throw .incompleteHead
        }
        var message = try SIPHead.parse(bytes[start..<headEnd], limits: limits)
        let available = bytes.count - bodyStart
        let length = try SIPHead.contentLength(message.headers) ?? available
        guard length <= available else { throw .bodyTruncated(expected: length, available: available) }
        message.body = Array(bytes[bodyStart..<(bodyStart + length)])
        return message
    }

    /// Parses `text` as a datagram and validates it: the one call for tests and tools.
    public init(parsing text: String, limits: SIPLimits = .default) throws(SIPParseError) {
        self = try Self.parse(datagram: Array(text.utf8), limits: limits)
        try validate()
    }
}

/// The start line and header section.
enum SIPHead {
    /// The index of the CRLFCRLF that ends the head, searching from `from`.
    static func endOfHead(_ bytes: [UInt8], from: Int) -> Int? {
        var i = from
        while i + 3 < bytes.count {
            if bytes[i + 3] != 0x0A { i += bytes[i + 3] == 0x0D ? 1 : 4; continue }
            if bytes[i] == 0x0D, bytes[i + 1] == 0x0A, bytes[i + 2] == 0x0D { return i }
            i += 1
        }
        return nil
    }

    /// Parses the head (start line and header lines, without the final empty line); the body is empty.
    static func parse(_ head: ArraySlice<UInt8>, limits: SIPLimits) throws(SIPParseError) -> SIPMessage {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = head.startIndex
        var i = head.startIndex
        while i < head.endIndex {
            let byte = head[i]
            if byte == 0x0D {
                guard i + 1 < head.endIndex, head[i + 1] == 0x0A else { throw .invalidHeaderLine(line: lines.count + 1) }
                lines.append(head[lineStart..<i])
                i += 2
                lineStart = i
                continue
            }
            // A bare LF (RFC 3261 §7: lines end with CRLF). NUL may occur in a quoted-pair.
            guard byte != 0x0A else { throw .invalidHeaderLine(line: lines.count + 1) }
            i += 1
        }
        lines.append(head[lineStart..<head.endIndex])
        guard let first = lines.first else { throw .empty }
        let headers = try parseFields(lines.dropFirst(), limits: limits)
        return try startLine(first, headers: headers)
    }

    private static func parseFields(_ lines: ArraySlice<ArraySlice<UInt8>>, limits: SIPLimits) throws(SIPParseError) -> SIPHeaders {
        var fields: [SIPHeaderField] = []
        var name = "", value: [UInt8] = []
        var lineNumber = 1
        func flush() {
            if !name.isEmpty { fields.append(SIPHeaderField(name: name, value: SIPHeaders.trimmed(value))) }
        }
        for line in lines {
            lineNumber += 1
            guard let firstByte = line.first else { throw .invalidHeaderLine(line: lineNumber) }
            if SIPCharacters.isWhitespace(firstByte) {
                // A continuation: CRLF 1*WSP is one SP (RFC 3261 §7.3.1).
                guard !name.isEmpty else { throw .invalidHeaderLine(line: lineNumber) }
                value.append(0x20)
                value.append(contentsOf: line.drop(while: SIPCharacters.isWhitespace))
                continue
            }
            flush()
            guard fields.count < limits.maxHeaderCount else { throw .tooManyHeaders(limit: limits.maxHeaderCount) }
            // HCOLON = *( SP / HTAB ) ":" SWS.
            let nameEnd = line.firstIndex { !SIPCharacters.token.contains($0) } ?? line.endIndex
            var colon = nameEnd
            while colon < line.endIndex, SIPCharacters.isWhitespace(line[colon]) { colon += 1 }
            guard nameEnd > line.startIndex, colon < line.endIndex, line[colon] == UInt8(ascii: ":") else {
                throw .invalidHeaderLine(line: lineNumber)
            }
            name = String(decoding: line[line.startIndex..<nameEnd], as: UTF8.self)
            value = Array(line[(colon + 1)...])
        }
        flush()
        return SIPHeaders(fields)
    }

    /// `Method SP Request-URI SP SIP-Version` or `SIP-Version SP Status-Code SP Reason-Phrase`,
    /// single spaces only (RFC 4475 §3.1.2.8–§3.1.2.10).
    private static func startLine(_ line: ArraySlice<UInt8>, headers: SIPHeaders) throws(SIPParseError) -> SIPMessage {
        let parts = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let first = parts.first, !first.isEmpty else { throw .invalidStartLine }
        if first.contains(UInt8(ascii: "/")) {
            let version = String(decoding: first, as: UTF8.self)
            let code = parts[1]
            guard isVersion(version), code.count == 3, let status = SIPCharacters.decimal(String(decoding: code, as: UTF8.self), as: UInt16.self),
                  (100...699).contains(status) else {
                throw isVersion(version) ? .invalidStatusCode : .invalidStartLine
            }
            let reason = parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : ""
            guard !reason.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 }) else { throw .invalidStartLine }
            return .response(SIPResponse(statusCode: Int(status), reasonPhrase: reason, version: version, headers: headers))
        }
        guard parts.count == 3, !parts[1].isEmpty, !parts[2].contains(0x20) else { throw .invalidStartLine }
        guard let method = SIPMethod(String(decoding: first, as: UTF8.self)) else { throw .invalidMethod }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard isVersion(version) else { throw .invalidStartLine }
        let uri: SIPAnyURI
        do { uri = try SIPAnyURI(parsing: String(decoding: parts[1], as: UTF8.self)) } catch { throw .invalidRequestURI }
        return .request(SIPRequest(method: method, uri: uri, version: version, headers: headers))
    }

    /// `"SIP" "/" 1*DIGIT "." 1*DIGIT` (RFC 3261 §25.1; the literal is case-insensitive).
    static func isVersion(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 7, SIPCharacters.equalFold(text.prefix(4), "SIP/") else { return false }
        let numbers = utf8[4...].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return numbers.count == 2 && numbers.allSatisfy { !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(SIPCharacters.digit.contains) }
    }

    /// The Content-Length, nil when absent; several fields or a malformed value are errors
    /// (RFC 4475 §3.1.2.3, §3.3.9), since the body cannot be delimited.
    static func contentLength(_ headers: SIPHeaders) throws(SIPParseError) -> Int? {
        let values = headers.values("Content-Length")
        guard let text = values.first else { return nil }
        guard values.count == 1 else { throw .duplicateHeader("Content-Length") }
        guard let length = SIPCharacters.decimal(text, as: UInt32.self) else { throw .invalidContentLength }
        return Int(length)
    }
}
