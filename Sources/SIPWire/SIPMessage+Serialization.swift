/// How header names are written.
public enum SIPSerializationStyle: Sendable {
    /// Full canonical names (`v` → `Via`, `call-id` → `Call-ID`), RFC 3261 §7.3.3's advice for
    /// messages an element builds.
    case canonical
    /// Names as received, for a proxy that forwards headers it does not own unchanged.
    case asReceived
}

extension SIPMessageContent {
    /// The message as bytes: start line, header fields in order, `Content-Length` set to the body's
    /// size (one field, where the first one stood, or last when there was none), the empty line
    /// and the body. Folded values were unfolded when parsed and are written on one line.
    public func serialized(_ style: SIPSerializationStyle = .canonical) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + body.count + headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        out.append(contentsOf: startLine.utf8)
        out.append(contentsOf: [0x0D, 0x0A])
        var wroteLength = false
        func write(_ name: String, _ value: String) {
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: [UInt8(ascii: ":"), 0x20])
            out.append(contentsOf: value.utf8)
            out.append(contentsOf: [0x0D, 0x0A])
        }
        for field in headers.fields {
            let name = style == .canonical ? SIPHeaderName.canonical(field.name) : field.name
            if field.key == "content-length" {
                if !wroteLength { write(name, String(body.count)) }
                wroteLength = true
            } else {
                write(name, field.value)
            }
        }
        if !wroteLength { write("Content-Length", String(body.count)) }
        out.append(contentsOf: [0x0D, 0x0A])
        out.append(contentsOf: body)
        return out
    }

    /// ``serialized(_:)`` as text (invalid UTF-8 in the body replaced), for logs and tests.
    public func serializedText(_ style: SIPSerializationStyle = .canonical) -> String {
        String(decoding: serialized(style), as: UTF8.self)
    }
}
