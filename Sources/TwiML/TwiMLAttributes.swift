/// Typed reads of one element's attributes, each failing with the attribute's name and the
/// element's offset. Attributes TwiML defines but Parley does not model are ignored, as are
/// unknown ones, so documents written for Twilio keep working.
struct TwiMLAttributes {
    let element: XMLReader.Element

    init(_ element: XMLReader.Element) { self.element = element }

    private func fail(_ name: String, _ value: String, expected: String) -> TwiMLError {
        let shown = value.count > 40 ? String(value.prefix(40)) + "…" : value
        return .invalid("<\(element.name)> attribute \(name)=\"\(shown)\" is not valid: expected \(expected)", at: element.offset)
    }

    /// The value with surrounding spaces trimmed; nil when absent or empty.
    func string(_ name: String) -> String? {
        guard let value = element.attribute(name)?.trimmingSpaces, !value.isEmpty else { return nil }
        return value
    }

    /// The value exactly as written (an empty string is kept), nil when absent.
    func raw(_ name: String) -> String? { element.attribute(name) }

    func int(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(TwiMLError) -> Int {
        try optionalInt(name, in: range) ?? value
    }

    func optionalInt(_ name: String, in range: ClosedRange<Int>) throws(TwiMLError) -> Int? {
        guard let text = string(name) else { return nil }
        guard text.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text),
              range.contains(value) else {
            throw fail(name, text, expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func bool(_ name: String, default value: Bool) throws(TwiMLError) -> Bool {
        guard let text = string(name) else { return value }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw fail(name, text, expected: "true or false")
        }
    }

    func method(_ name: String = "method") throws(TwiMLError) -> TwiMLMethod {
        guard let text = string(name) else { return .post }
        guard let method = TwiMLMethod(rawValue: text.uppercased()) else { throw fail(name, text, expected: "GET or POST") }
        return method
    }

    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default value: T) throws(TwiMLError) -> T
        where T.RawValue == String {
        guard let text = string(name) else { return value }
        guard let parsed = T(rawValue: text) else {
            throw fail(name, text, expected: "one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return parsed
    }

    func word(_ name: String, default value: String, allowed: [String]) throws(TwiMLError) -> String {
        guard let text = string(name) else { return value }
        guard allowed.contains(text) else { throw fail(name, text, expected: "one of " + allowed.joined(separator: ", ")) }
        return text
    }

    /// A space-separated list of words from `allowed`, duplicates dropped, order kept.
    func words(_ name: String, allowed: [String]) throws(TwiMLError) -> [String] {
        guard let text = string(name) else { return [] }
        var out: [String] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) {
            guard allowed.contains(word) else { throw fail(name, text, expected: "words from " + allowed.joined(separator: ", ")) }
            if !out.contains(word) { out.append(word) }
        }
        return out
    }

    func callEvents(_ name: String = "statusCallbackEvent") throws(TwiMLError) -> [TwiMLCallEvent] {
        try words(name, allowed: TwiMLCallEvent.allCases.map(\.rawValue)).compactMap(TwiMLCallEvent.init(rawValue:))
    }

    /// DTMF keys with optional waits: `0-9`, `*`, `#`, and `w`/`W` when `waits`.
    func keys(_ name: String, waits: Bool) throws(TwiMLError) -> String? {
        guard let text = string(name) else { return nil }
        let allowed = waits ? "0123456789*#wW" : "0123456789*#"
        guard text.count <= 256, text.allSatisfy({ allowed.contains($0) }) else {
            throw fail(name, text, expected: "DTMF keys (\(allowed))")
        }
        return text
    }
}

extension String {
    /// The string without XML whitespace (space, tab, CR, LF) at either end.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
