/// A key a SIP UA sends in an INFO request (RFC 6086) instead of an RFC 4733 event, in the two
/// bodies phones use: `application/dtmf-relay` (Cisco's, `Signal=5\r\nDuration=160`) and
/// `application/dtmf` (the key alone, or its RFC 4733 event code). A pure parser: bytes in, value out.
public struct SIPDTMFInfo: Sendable, Hashable {
    /// `0-9`, `*`, `#`, `A-D`.
    public var key: Character
    /// How long the key was held, in milliseconds, when the body says.
    public var duration: Int?

    public init(key: Character, duration: Int? = nil) {
        self.key = key
        self.duration = duration
    }

    /// The body types this parser reads (for `Accept` and 415 answers).
    public static let mediaTypes = ["application/dtmf-relay", "application/dtmf"]

    /// Reads an INFO body of media type `type/subtype` (compared without case).
    /// - Throws: ``SIPDTMFInfoError/unsupportedType`` (415) for another body type,
    ///   ``SIPDTMFInfoError/malformed`` (400) when the body names no key.
    public init(type: String, subtype: String, body: [UInt8]) throws(SIPDTMFInfoError) {
        guard type.lowercased() == "application" else { throw .unsupportedType }
        // A body longer than any real one is not read (the parser stays linear and small).
        guard body.count <= 1024 else { throw .malformed }
        let text = String(decoding: body, as: UTF8.self)
        switch subtype.lowercased() {
        case "dtmf-relay": self = try Self.relay(text)
        case "dtmf":
            guard let key = Self.key(text.trimmingWhitespace) else { throw .malformed }
            self.init(key: key)
        default: throw .unsupportedType
        }
    }

    /// This key as an `application/dtmf-relay` body (`Signal=5\r\nDuration=160\r\n`).
    public var relayBody: [UInt8] {
        Array(("Signal=\(key)\r\n" + (duration.map { "Duration=\($0)\r\n" } ?? "")).utf8)
    }

    /// `Signal=<key>` and optional `Duration=<ms>` lines, names without case, blanks around `=`.
    private static func relay(_ text: String) throws(SIPDTMFInfoError) -> SIPDTMFInfo {
        var key: Character?
        var duration: Int?
        for line in text.split(whereSeparator: \.isNewline) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = String(line[..<equals]).trimmingWhitespace.lowercased()
            let value = String(line[line.index(after: equals)...]).trimmingWhitespace
            switch name {
            case "signal": key = Self.key(value)
            case "duration": duration = value.count <= 6 ? Int(value).flatMap { $0 >= 0 ? $0 : nil } : nil
            default: continue
            }
        }
        guard let key else { throw .malformed }
        return SIPDTMFInfo(key: key, duration: duration)
    }

    /// A key as written (`5`, `*`, `a`) or as its RFC 4733 event code (`10` is `*`, `11` `#`, 12–15 `A`–`D`).
    static func key(_ text: String) -> Character? {
        let keys: [Character] = Array("0123456789*#ABCD")
        if text.count == 1, let character = text.uppercased().first, keys.contains(character) { return character }
        guard text.count == 2, let code = Int(text), (10...15).contains(code) else { return nil }
        return keys[code]
    }
}

/// Why an INFO body carries no key; ``statusCode`` is the answer to the INFO.
public enum SIPDTMFInfoError: Error, Sendable, Hashable {
    /// Not a DTMF body: 415 Unsupported Media Type (RFC 6086 §4.2.2).
    case unsupportedType
    /// A DTMF body naming no key: 400.
    case malformed

    public var statusCode: Int { self == .unsupportedType ? 415 : 400 }
}

extension String {
    /// Without leading and trailing blanks and line ends (`\r\n` is one `Character`).
    fileprivate var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
