import SIPWire

/// Custom SIP headers on a call (the seed's `call:headers:` and `Incoming.extraHeaders`), checked
/// as Plivo's SDKs check them before anything is sent: a name is `X-` followed by 1–24 letters,
/// digits or `-` (Plivo forwards its `X-PH-` ones to the application); a value is 1–48 of
/// letters, digits and `-_.%+@:` (no spaces, line breaks or separators that could end a header);
/// at most 16 headers. Anything else is an ``EndpointError`` with code ``EndpointError/invalidArgument``.
public enum ExtraHeaders {
    public static let maximumCount = 16
    public static let maximumNameLength = 24
    public static let maximumValueLength = 48

    /// The headers in name order (a dictionary has none), or the first problem.
    public static func validated(_ headers: [String: String]) throws(EndpointError) -> [(name: String, value: String)] {
        guard headers.count <= maximumCount else { throw .invalid("at most \(maximumCount) custom headers, got \(headers.count)") }
        var out: [(name: String, value: String)] = []
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard name.utf8.count > 2, name.prefix(2).lowercased() == "x-" else {
                throw .invalid("custom header \"\(name)\": the name must start with X-")
            }
            let rest = name.utf8.dropFirst(2)
            guard rest.count <= maximumNameLength else {
                throw .invalid("custom header \"\(name)\": at most \(maximumNameLength) characters after X-")
            }
            guard rest.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") }) else {
                throw .invalid("custom header \"\(name)\": only letters, digits and - in a name")
            }
            guard !value.isEmpty, value.utf8.count <= maximumValueLength else {
                throw .invalid("custom header \(name): the value must have 1–\(maximumValueLength) characters")
            }
            guard value.utf8.allSatisfy({ isAlphanumeric($0) || valueSymbols.contains($0) }) else {
                throw .invalid("custom header \(name): only letters, digits and -_.%+@: in a value")
            }
            out.append((name, value))
        }
        return out
    }

    /// The `X-` headers of a received request, by name as sent.
    static func received(in headers: SIPHeaders) -> [String: String] {
        var out: [String: String] = [:]
        for field in headers.fields where field.name.utf8.count > 2 && field.name.prefix(2).lowercased() == "x-" && out.count < maximumCount {
            out[field.name] = field.value
        }
        return out
    }

    private static let valueSymbols = Set("-_.%+@:".utf8)

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
    }
}
