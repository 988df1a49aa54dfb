/// `application/x-www-form-urlencoded` as the WHATWG URL Standard defines it (§5): the body of
/// Twilio's webhook and REST requests, and query strings.
///
/// Decoding follows §5.1 exactly: `+` is a space, `%XX` is a byte, and an invalid percent sequence
/// (`%zz`, a lone `%`) is kept literally, as browsers and Python's `parse_qs` do; bytes that are
/// not UTF-8 become U+FFFD. Only the limits make decoding fail.
public enum FormURLEncoding {
    /// Limits on what `decode` accepts.
    public struct Limits: Sendable, Hashable {
        /// Bytes of the whole input.
        public var maxBytes: Int
        /// Name-value pairs.
        public var maxPairs: Int

        public init(maxBytes: Int = 1 << 20, maxPairs: Int = 1000) {
            self.maxBytes = maxBytes
            self.maxPairs = maxPairs
        }
    }

    /// Decodes a form body into name-value pairs in order (§5.1). Empty sequences between `&`s are
    /// skipped; a sequence without `=` is a name with an empty value.
    public static func decode(_ bytes: some Collection<UInt8>, limits: Limits = Limits()) throws(FormURLEncodingError)
        -> [(String, String)] {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge(limit: limits.maxBytes) }
        var pairs: [(String, String)] = []
        for sequence in Array(bytes).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard pairs.count < limits.maxPairs else { throw .tooManyPairs(limit: limits.maxPairs) }
            if let equals = sequence.firstIndex(of: UInt8(ascii: "=")) {
                pairs.append((decodeComponent(sequence[..<equals]), decodeComponent(sequence[(equals + 1)...])))
            } else {
                pairs.append((decodeComponent(sequence), ""))
            }
        }
        return pairs
    }

    /// Decodes a form given as text (its UTF-8 bytes).
    public static func decode(_ text: String, limits: Limits = Limits()) throws(FormURLEncodingError) -> [(String, String)] {
        try decode(Array(text.utf8), limits: limits)
    }

    /// Serializes pairs (§5.2): `name=value` joined by `&`, each percent-encoded by `encodeComponent`.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { encodeComponent($0.0) + "=" + encodeComponent($0.1) }.joined(separator: "&")
    }

    /// The urlencoded byte serializer (§5.2): ASCII letters, digits and `*-._` stay, space becomes
    /// `+`, every other byte of the UTF-8 encoding becomes `%XX` (uppercase hex).
    public static func encodeComponent(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes one name or value: `+` to space, then percent-decoding (URL Standard §1.3), invalid
    /// sequences kept as they are, then UTF-8 decoding with replacement.
    public static func decodeComponent(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var i = 0
        while i < input.count {
            let byte = input[i]
            if byte == UInt8(ascii: "%"), i + 2 < input.count, let hi = hexValue(input[i + 1]), let lo = hexValue(input[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(byte == UInt8(ascii: "+") ? 0x20 : byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The query of `url` (after `?`, before `#`) decoded as a form; empty when there is none.
    public static func queryPairs(of url: String, limits: Limits = Limits()) throws(FormURLEncodingError) -> [(String, String)] {
        let beforeFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let question = beforeFragment.firstIndex(of: "?") else { return [] }
        return try decode(Array(beforeFragment[beforeFragment.index(after: question)...].utf8), limits: limits)
    }

    /// `url` with `pairs` appended to its query (before any fragment), as a GET webhook carries its
    /// parameters. Returns `url` unchanged when `pairs` is empty.
    public static func url(_ url: String, appending pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return url }
        let parts = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let base = String(parts.first ?? "")
        let separator = !base.contains("?") ? "?" : (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&")
        return base + separator + encode(pairs) + (parts.count > 1 ? "#" + parts[1] : "")
    }
}

/// Why a form could not be decoded.
public enum FormURLEncodingError: Error, Sendable, Hashable {
    /// The input is longer than `Limits.maxBytes`.
    case tooLarge(limit: Int)
    /// The input has more than `Limits.maxPairs` pairs.
    case tooManyPairs(limit: Int)
}
