/// Incremental HTTP/1.1 response parser for a client. Interim 1xx responses other than
/// `101 Switching Protocols` are skipped. Bodies without length end when `finish()` is called at EOF.
public struct HTTPResponseParser: Sendable {
    public let limits: HTTPLimits
    private var buffer = HTTPInputBuffer()
    private var headParser = HTTPHeadParser()
    private var pending: (response: HTTPResponse, body: HTTPBodyReader)?
    private var failure: HTTPParseError?

    public init(limits: HTTPLimits = HTTPLimits()) { self.limits = limits }

    public mutating func append(_ bytes: some Sequence<UInt8>) { buffer.append(bytes) }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.append(bytes) }

    /// Removes the unparsed bytes (e.g. WebSocket frames that followed a 101 response).
    public mutating func takeBufferedBytes() -> [UInt8] { buffer.takeAll() }

    /// Whether part of a response has been received but not returned.
    public var hasPartialResponse: Bool { pending != nil || !buffer.isEmpty }

    /// Whether the pending response's body runs until the connection closes.
    public var readsUntilClose: Bool { pending?.body.framing == .untilClose }

    /// The next complete response to a request with method `requestMethod`, or nil if more bytes are
    /// needed. HEAD answers and 1xx/204/304 have no body (RFC 9112 §6.3 rules 1–2).
    public mutating func next(requestMethod: String = "GET") throws(HTTPParseError) -> HTTPResponse? {
        if let failure { throw failure }
        do {
            while true {
                if pending == nil {
                    guard let head = try headParser.parse(&buffer, limits: limits) else { return nil }
                    let response = try Self.response(from: head)
                    if (100...199).contains(response.status) && response.status != 101 { continue }
                    let framing: HTTPBodyFraming
                    if requestMethod == "HEAD" || !response.statusAllowsBody {
                        framing = .empty
                    } else {
                        framing = try HTTPBodyFraming.from(response.headers, limits: limits, noLengthMeans: .untilClose)
                    }
                    pending = (response, HTTPBodyReader(framing: framing))
                }
                guard var (response, body) = pending else { return nil }
                guard try body.read(&buffer, limits: limits) else {
                    pending = (response, body)
                    return nil
                }
                pending = nil
                response.body = body.body
                return response
            }
        } catch {
            failure = error
            pending = nil
            throw error
        }
    }

    /// Call at EOF: completes a read-until-close body, or throws `.truncated` if a response was cut off.
    public mutating func finish() throws(HTTPParseError) -> HTTPResponse? {
        guard var (response, body) = pending else {
            if buffer.isEmpty { return nil }
            throw .truncated
        }
        guard body.framing == .untilClose else { throw .truncated }
        _ = try body.read(&buffer, limits: limits)
        pending = nil
        response.body = body.body
        return response
    }

    private static func response(from head: HTTPHead) throws(HTTPParseError) -> HTTPResponse {
        guard let version = HTTPVersion(bytes: ArraySlice(head.parts[0].utf8)) else { throw .badStartLine }
        guard version.major == 1 else { throw .unsupportedVersion }
        let code = head.parts[1]
        guard code.utf8.count == 3, code.utf8.allSatisfy(isDigit), let status = Int(code) else {
            throw .badStartLine
        }
        return HTTPResponse(status: status, reason: head.parts[2], version: version, headers: head.headers)
    }
}
