/// An HTTP/1.1 response with its whole body (RFC 9112 §4).
public struct HTTPResponse: Sendable {
    public var status: Int
    /// The reason phrase; informational only (RFC 9112 §4).
    public var reason: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    /// A response; `reason` defaults to the standard phrase for `status`.
    public init(status: Int, reason: String? = nil, version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.reason = reason ?? HTTPStatus.reason(status)
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// An `application/json` response from encoded JSON bytes.
    public static func json(_ bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }

    /// An `application/json` response from a JSON string.
    public static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        json(Array(text.utf8), status: status)
    }

    /// A bodiless response with only a status.
    public static func status(_ status: Int) -> HTTPResponse { HTTPResponse(status: status) }

    /// The body as UTF-8 text (invalid sequences become U+FFFD).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Whether a response with this status can carry a body (RFC 9110 §15: not 1xx, 204, 304).
    public var statusAllowsBody: Bool { !(100...199).contains(status) && status != 204 && status != 304 }

    /// Appends the serialized response. Adds `Content-Length` unless the status forbids a body or
    /// `Content-Length`/`Transfer-Encoding` is already set. With `omitBody` (answers to HEAD) the
    /// length is still announced but the body is not written (RFC 9110 §9.3.2).
    public func serialize(into out: inout [UInt8], omitBody: Bool = false) {
        out.append(contentsOf: "\(version) \(status) \(reason)\r\n".utf8)
        headers.serialize(into: &out)
        if statusAllowsBody && !headers.contains("Content-Length") && !headers.contains("Transfer-Encoding") {
            out.append(contentsOf: "Content-Length: \(body.count)\r\n".utf8)
        }
        out.append(contentsOf: [0x0D, 0x0A])
        if statusAllowsBody && !omitBody { out.append(contentsOf: body) }
    }

    /// The serialized response.
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }
}

/// Standard reason phrases (RFC 9110 §15).
public enum HTTPStatus {
    public static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
