/// Incremental HTTP/1.1 request parser: append bytes as they arrive, then call `next()` until it
/// returns nil. Pipelined requests come out one per call. After an error the parser stays failed.
///
/// ```swift
/// var parser = HTTPRequestParser(limits: HTTPLimits())
/// parser.append(bytes)
/// while let request = try parser.next() { … }
/// ```
public struct HTTPRequestParser: Sendable {
    public let limits: HTTPLimits
    private var buffer = HTTPInputBuffer()
    private var headParser = HTTPHeadParser()
    private var pending: (request: HTTPRequest, body: HTTPBodyReader)?
    private var failure: HTTPParseError?
    private var continuePending = false

    public init(limits: HTTPLimits = HTTPLimits()) { self.limits = limits }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) { buffer.append(bytes) }

    /// Adds received bytes from a raw buffer (no intermediate array).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.append(bytes) }

    /// Bytes received but not yet part of a returned request.
    public var bufferedByteCount: Int { buffer.count }

    /// Whether a request head has been parsed and its body is still arriving.
    public var isReadingBody: Bool { pending != nil }

    /// The head of the request whose body is still arriving (its `body` empty), so a server can
    /// refuse it — e.g. for missing credentials — before reading the body.
    public var pendingHead: HTTPRequest? { pending?.request }

    /// Body bytes of the pending request received so far (decoded, for chunked bodies).
    public var pendingBodyByteCount: Int { pending?.body.body.count ?? 0 }

    /// Whether some of a request (head or body) has been received but not returned.
    public var hasPartialRequest: Bool { pending != nil || !buffer.isEmpty }

    /// Removes the unparsed bytes, e.g. the first WebSocket frames after an upgrade request.
    public mutating func takeBufferedBytes() -> [UInt8] { buffer.takeAll() }

    /// True once per request whose head carried `Expect: 100-continue` (RFC 9110 §10.1.1) while its
    /// body has not fully arrived: the server should send `100 Continue` now.
    public mutating func takeContinueRequest() -> Bool {
        defer { continuePending = false }
        return continuePending
    }

    /// The next complete request, or nil if more bytes are needed.
    public mutating func next() throws(HTTPParseError) -> HTTPRequest? {
        if let failure { throw failure }
        do {
            return try step()
        } catch {
            failure = error
            pending = nil
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> HTTPRequest? {
        if pending == nil {
            guard let head = try headParser.parse(&buffer, limits: limits) else { return nil }
            let request = try Self.request(from: head)
            let framing = try HTTPBodyFraming.from(request.headers, limits: limits, noLengthMeans: .empty)
            pending = (request, HTTPBodyReader(framing: framing))
            continuePending = request.version == .http1_1 && framing != .empty
                && request.headers.tokens("Expect").contains("100-continue")
        }
        guard var (request, body) = pending else { return nil }
        pending = nil
        guard try body.read(&buffer, limits: limits) else {
            pending = (request, body)
            return nil
        }
        continuePending = false
        request.body = body.body
        return request
    }

    private static func request(from head: HTTPHead) throws(HTTPParseError) -> HTTPRequest {
        let method = head.parts[0], target = head.parts[1]
        guard method.utf8.allSatisfy(isTokenChar) else { throw .badStartLine }
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { throw .badStartLine }
        guard let version = HTTPVersion(bytes: ArraySlice(head.parts[2].utf8)) else { throw .badStartLine }
        guard version.major == 1 else { throw .unsupportedVersion }
        // RFC 9112 §3.2: an HTTP/1.1 request must carry exactly one Host field.
        if version.minor >= 1 && head.headers.values("Host").count != 1 { throw .badHeader }
        return HTTPRequest(method: method, target: target, version: version, headers: head.headers)
    }
}
