/// An HTTP/1.1 request with its whole body (RFC 9112 §3).
public struct HTTPRequest: Sendable {
    /// The method token, e.g. `GET` (case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The request-target as sent, e.g. `/rooms?limit=5`.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: String = "GET", target: String = "/", version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The target without its query, percent-decoding left to the router.
    public var path: String {
        guard let q = target.firstIndex(of: "?") else { return target }
        return String(target[..<q])
    }

    /// The raw query after `?`, or the empty string.
    public var query: String {
        guard let q = target.firstIndex(of: "?") else { return "" }
        return String(target[target.index(after: q)...])
    }

    /// The query as `application/x-www-form-urlencoded` pairs, percent- and `+`-decoded, in order.
    public var queryItems: [(name: String, value: String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: percentDecoded(parts[0]), value: parts.count > 1 ? percentDecoded(parts[1]) : "")
        }
    }

    /// The first query value named `name`.
    public func queryValue(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }

    /// The body as UTF-8 text (invalid sequences become U+FFFD).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Whether the connection stays open after this exchange (RFC 9112 §9.3).
    public var keepAlive: Bool { HTTPKeepAlive.persists(version: version, headers: headers) }

    /// Appends the serialized request. Adds `Content-Length` when the body is non-empty and neither
    /// `Content-Length` nor `Transfer-Encoding` is set; a chunked body must already be encoded.
    public func serialize(into out: inout [UInt8]) {
        out.append(contentsOf: "\(method) \(target) \(version)\r\n".utf8)
        headers.serialize(into: &out)
        if !body.isEmpty && !headers.contains("Content-Length") && !headers.contains("Transfer-Encoding") {
            out.append(contentsOf: "Content-Length: \(body.count)\r\n".utf8)
        }
        out.append(contentsOf: [0x0D, 0x0A])
        out.append(contentsOf: body)
    }

    /// The serialized request.
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }
}

/// Percent-decoding with `+` as space (WHATWG urlencoded); malformed escapes stay as they are.
func percentDecoded(_ text: Substring) -> String {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
        if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]),
           let lo = hexValue(bytes[i + 2]) {
            out.append(hi << 4 | lo)
            i += 3
        } else {
            out.append(bytes[i] == UInt8(ascii: "+") ? 0x20 : bytes[i])
            i += 1
        }
    }
    return String(decoding: out, as: UTF8.self)
}
