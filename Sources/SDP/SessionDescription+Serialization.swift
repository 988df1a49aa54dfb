extension SessionDescription {
    /// The description as text, lines in RFC 8866 §5 order, each ended by CRLF.
    ///
    /// Attributes are written as stored, so a parsed description round-trips line for line.
    /// Values are written as given: text fields and attribute values must not contain CR, LF or
    /// NUL. With no timings, `t=0 0` is written so the output stays valid.
    public func serialized() -> String {
        var writer = SDPWriter()
        writer.line("v", "0")
        writer.line("o", origin.sdpValue)
        writer.line("s", sessionName)
        if let information { writer.line("i", information) }
        if let uri { writer.line("u", uri) }
        for email in emails { writer.line("e", email) }
        for phone in phoneNumbers { writer.line("p", phone) }
        if let connection { writer.line("c", connection.sdpValue) }
        for bandwidth in bandwidths { writer.line("b", bandwidth.sdpValue) }
        for timing in timings.isEmpty ? [SDPTiming()] : timings {
            writer.line("t", timing.sdpValue)
            for repeatTimes in timing.repeats { writer.line("r", repeatTimes.sdpValue) }
        }
        if !timeZoneAdjustments.isEmpty { writer.line("z", SDPTimeZoneAdjustment.sdpValue(timeZoneAdjustments)) }
        for attribute in attributes { writer.attribute(attribute) }
        for section in media { section.write(to: &writer) }
        return writer.text
    }

    /// Appends the UTF-8 of ``serialized()`` to `buffer`.
    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: serialized().utf8)
    }
}

extension MediaDescription {
    /// The section's lines (`m=` through its last `a=`), each ended by CRLF.
    public func serialized() -> String {
        var writer = SDPWriter()
        write(to: &writer)
        return writer.text
    }

    func write(to writer: inout SDPWriter) {
        writer.line("m", mediaLineValue)
        if let information { writer.line("i", information) }
        for connection in connections { writer.line("c", connection.sdpValue) }
        for bandwidth in bandwidths { writer.line("b", bandwidth.sdpValue) }
        for attribute in attributes { writer.attribute(attribute) }
    }
}

/// Accumulates CRLF-terminated lines.
struct SDPWriter {
    var text = ""

    init() { text.reserveCapacity(4096) }

    mutating func line(_ type: Character, _ value: String) {
        text.append(type)
        text.append("=")
        text.append(value)
        text.append("\r\n")
    }

    mutating func attribute(_ attribute: SDPAttribute) {
        text.append("a=")
        text.append(attribute.name)
        if let value = attribute.value {
            text.append(":")
            text.append(value)
        }
        text.append("\r\n")
    }
}
