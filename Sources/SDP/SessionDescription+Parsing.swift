extension SessionDescription {
    /// Parses a session description. Lines may end in CRLF or LF.
    ///
    /// Ordering follows what browsers enforce of RFC 8866 §5: `v=` first, then `o=` and `s=`, at
    /// least one `t=` before the first `m=`, and `r=` only after a `t=`. The other session and
    /// media lines may come in any order, as Chromium accepts them; `a=` lines keep their order.
    /// Known WebRTC attributes are validated (see ``SDPAttributeValue``); unknown ones are kept.
    /// - Throws: `SDPParseError` with the line number and reason.
    public init(parsing text: String, limits: SDPLimits = .default) throws(SDPParseError) {
        // Check the size before copying, so oversized input costs nothing.
        guard text.utf8.count <= limits.maxBytes else {
            throw SDPParseError(line: 0, reason: .inputTooLarge(limit: limits.maxBytes))
        }
        try self.init(lines: SDPLineScanner.lines(validated: Array(text.utf8), limits: limits), limits: limits)
    }

    /// Parses a session description from bytes, which must be UTF-8.
    /// - Throws: `SDPParseError` (`.invalidUTF8` for other encodings).
    public init(parsing bytes: some Collection<UInt8>, limits: SDPLimits = .default) throws(SDPParseError) {
        guard bytes.count <= limits.maxBytes else {
            throw SDPParseError(line: 0, reason: .inputTooLarge(limit: limits.maxBytes))
        }
        try self.init(lines: SDPLineScanner.lines(utf8: Array(bytes), limits: limits), limits: limits)
    }

    private init(lines: [SDPLine], limits: SDPLimits) throws(SDPParseError) {
        var cursor = 0
        func fail(_ line: SDPLine, _ reason: SDPParseError.Reason) -> SDPParseError {
            SDPParseError(line: line.number, reason: reason)
        }
        /// The next line if it has `type`, else a `missingLine` error.
        func take(_ type: Character) throws(SDPParseError) -> SDPLine {
            guard cursor < lines.count else { throw SDPParseError(line: 0, reason: .missingLine(type)) }
            let line = lines[cursor]
            guard line.type == type else { throw fail(line, .missingLine(type)) }
            cursor += 1
            return line
        }

        // v=, o=, s= open every description, in this order (RFC 8866 §5.1-§5.3).
        guard lines[0].type == "v" else { throw fail(lines[0], .missingVersion) }
        let version = try take("v")
        guard SDPText.trimmed(version.value) == "0" else { throw fail(version, .unsupportedVersion) }
        let originLine = try take("o")
        guard let origin = SDPOrigin(value: originLine.value) else { throw fail(originLine, .invalidOrigin) }
        self.init(origin: origin, sessionName: String(try take("s").value), timings: [])

        // Session-level lines up to the first m= (RFC 8866 §5.4-§5.13).
        while cursor < lines.count, lines[cursor].type != "m" {
            let line = lines[cursor]
            cursor += 1
            switch line.type {
            case "i":
                guard information == nil else { throw fail(line, .unexpectedLine("i")) }
                information = String(line.value)
            case "u":
                guard uri == nil else { throw fail(line, .unexpectedLine("u")) }
                uri = String(line.value)
            case "e": emails.append(String(line.value))
            case "p": phoneNumbers.append(String(line.value))
            case "c":
                guard connection == nil else { throw fail(line, .unexpectedLine("c")) }
                guard let parsed = SDPConnection(fields: SDPText.fields(line.value)[...]) else {
                    throw fail(line, .invalidConnection)
                }
                connection = parsed
            case "b":
                guard let parsed = SDPBandwidth(value: line.value) else { throw fail(line, .invalidBandwidth) }
                bandwidths.append(parsed)
            case "t":
                guard let parsed = SDPTiming(value: line.value) else { throw fail(line, .invalidTiming) }
                timings.append(parsed)
            case "r":
                guard !timings.isEmpty, let parsed = SDPRepeatTimes(value: line.value) else {
                    throw fail(line, .invalidRepeat)
                }
                timings[timings.count - 1].repeats.append(parsed)
            case "z":
                guard timeZoneAdjustments.isEmpty else { throw fail(line, .unexpectedLine("z")) }
                guard let parsed = SDPTimeZoneAdjustment.parseList(line.value) else {
                    throw fail(line, .invalidTimeZone)
                }
                timeZoneAdjustments = parsed
            case "k": break  // Obsolete encryption key (RFC 8866 §5.12): accepted and dropped.
            case "a": attributes.append(try Self.attribute(line))
            case "v", "o", "s": throw fail(line, .unexpectedLine(line.type))
            default: throw fail(line, .unknownLineType(line.type))
            }
        }
        guard !timings.isEmpty else {
            throw SDPParseError(line: cursor < lines.count ? lines[cursor].number : 0, reason: .missingLine("t"))
        }

        // Media sections (RFC 8866 §5.14): m= then i=, c=, b=, k=, a= in any order.
        while cursor < lines.count {
            let mediaLine = lines[cursor]
            cursor += 1
            guard media.count < limits.maxMediaSections else {
                throw fail(mediaLine, .tooManyMediaSections(limit: limits.maxMediaSections))
            }
            var section = try Self.mediaSection(mediaLine)
            while cursor < lines.count, lines[cursor].type != "m" {
                let line = lines[cursor]
                cursor += 1
                switch line.type {
                case "i":
                    guard section.information == nil else { throw fail(line, .unexpectedLine("i")) }
                    section.information = String(line.value)
                case "c":
                    guard let parsed = SDPConnection(fields: SDPText.fields(line.value)[...]) else {
                        throw fail(line, .invalidConnection)
                    }
                    section.connections.append(parsed)
                case "b":
                    guard let parsed = SDPBandwidth(value: line.value) else { throw fail(line, .invalidBandwidth) }
                    section.bandwidths.append(parsed)
                case "k": break
                case "a": section.attributes.append(try Self.attribute(line))
                case "v", "o", "s", "u", "e", "p", "t", "r", "z": throw fail(line, .unexpectedLine(line.type))
                default: throw fail(line, .unknownLineType(line.type))
                }
            }
            media.append(section)
        }
    }

    /// `m=<media> <port>[/<number of ports>] <proto> <fmt> ...` (RFC 8866 §5.14).
    private static func mediaSection(_ line: SDPLine) throws(SDPParseError) -> MediaDescription {
        let f = SDPText.fields(line.value)
        guard f.count >= 4 else { throw SDPParseError(line: line.number, reason: .invalidMedia) }
        let (portText, countText) = SDPText.splitOnce(f[1], at: "/")
        guard let port = SDPText.decimal(portText, as: UInt16.self) else {
            throw SDPParseError(line: line.number, reason: .invalidPort)
        }
        var portCount: UInt16?
        if let countText {
            guard let count = SDPText.decimal(countText, as: UInt16.self) else {
                throw SDPParseError(line: line.number, reason: .invalidPort)
            }
            portCount = count
        }
        return MediaDescription(mediaType: String(f[0]), port: port, portCount: portCount, proto: String(f[2]),
                                formats: f.dropFirst(3).map(String.init))
    }

    /// `a=<name>[:<value>]` (RFC 8866 §5.13); known WebRTC attributes must match their grammar.
    private static func attribute(_ line: SDPLine) throws(SDPParseError) -> SDPAttribute {
        let (name, value) = SDPText.splitOnce(line.value, at: ":")
        guard !name.isEmpty else { throw SDPParseError(line: line.number, reason: .malformedAttribute) }
        let attribute = SDPAttribute(name: String(name), value: value.map(String.init))
        if SDPAttributeValue.isKnown(attribute.name) {
            do {
                _ = try SDPAttributeValue(name: attribute.name, value: attribute.value)
            } catch {
                throw SDPParseError(line: line.number, reason: error.reason)
            }
        }
        return attribute
    }
}
