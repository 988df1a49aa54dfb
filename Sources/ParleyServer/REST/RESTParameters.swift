import HTTPWire

/// The parameters of one REST request: the query for GET, the
/// `application/x-www-form-urlencoded` body for POST (the vendor's API takes no JSON bodies).
/// Names are case-sensitive, as the vendor's; the first value of a repeated name wins.
struct RESTParameters {
    private(set) var pairs: [(name: String, value: String)]

    init(_ pairs: [(name: String, value: String)]) { self.pairs = pairs }

    /// The query items of `request`, plus its form body when it has one.
    init(_ request: HTTPRequest) throws(RESTFailure) {
        var pairs = request.queryItems
        if !request.body.isEmpty {
            let type = request.headers["Content-Type"]?.lowercased() ?? "application/x-www-form-urlencoded"
            guard type.hasPrefix("application/x-www-form-urlencoded") else {
                throw .invalidParameter("the body must be application/x-www-form-urlencoded, not \(type)")
            }
            pairs += Self.decodeForm(request.body)
        }
        self.pairs = pairs
    }

    subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// Whether `name` was sent at all (an empty value counts: it clears a field).
    func contains(_ name: String) -> Bool { pairs.contains { $0.name == name } }

    /// WHATWG urlencoded parsing: `&`-separated, `+` is a space, percent escapes decoded; malformed
    /// escapes are kept literally, never trapped on.
    static func decodeForm(_ body: [UInt8]) -> [(name: String, value: String)] {
        body.split(separator: UInt8(ascii: "&")).map { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            return (name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.endIndex, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(byte == UInt8(ascii: "+") ? 0x20 : byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x37
        case 0x61...0x66: c - 0x57
        default: nil
        }
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters, for query strings we write.
    static func encodeComponent(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `name=value&…`, both encoded.
    static func encodeQuery(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(encodeComponent($0.0))=\(encodeComponent($0.1))" }.joined(separator: "&")
    }
}
