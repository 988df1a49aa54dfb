/// Splits a byte stream (TCP, TLS) into SIP messages by Content-Length (RFC 3261 §18.3), and
/// reports RFC 5626 §3.5.1 keep-alives: a CRLFCRLF "ping" and a CRLF "pong".
///
/// Feed bytes with ``append(_:)`` as they arrive, then call ``next()`` until it returns nil. An
/// error means the stream cannot be framed any more (a message over the size limit, a head that is
/// not SIP, a missing or malformed Content-Length): the transport closes the connection. Messages
/// come out syntax-checked only; ``SIPMessageContent/validate()`` them before use so a malformed
/// one can still be answered with 400 on the open connection. The buffer never holds more than
/// one message's worth of bytes (``SIPLimits/maxMessageBytes``) beyond what ``next()`` consumed.
public struct SIPStreamFramer: Sendable {
    /// Which side of RFC 5626's keep-alive this end is.
    public enum Role: Sendable {
        /// Receives pings (CRLFCRLF); a lone CRLF is stray and ignored (RFC 3261 §7.5).
        case server
        /// Receives pongs (CRLF) and reports each one at once.
        case client
    }

    /// What the stream carried next.
    public enum Event: Sendable, Hashable {
        case message(SIPMessage)
        /// CRLFCRLF: the peer asks for a pong (answer with CRLF).
        case ping
        /// CRLF: the answer to our ping.
        case pong
    }

    public let role: Role
    public let limits: SIPLimits
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the end of the head resumes, so a slowly arriving head is scanned once.
    private var scanned = 0

    public init(role: Role, limits: SIPLimits = .default) {
        self.role = role
        self.limits = limits
    }

    /// Bytes received and not yet returned as events.
    public var bufferedCount: Int { buffer.count - start }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete event, or nil until more bytes arrive.
    public mutating func next() throws(SIPParseError) -> Event? {
        if let keepAlive = keepAlive() { return keepAlive }
        guard start < buffer.count else { return nil }
        guard let headEnd = SIPHead.endOfHead(buffer, from: max(start, scanned)) else {
            scanned = max(start, buffer.count - 3)
            guard bufferedCount <= limits.maxMessageBytes else { throw .messageTooLarge(limit: limits.maxMessageBytes) }
            return nil
        }
        let bodyStart = headEnd + 4
        guard bodyStart - start <= limits.maxMessageBytes else { throw .messageTooLarge(limit: limits.maxMessageBytes) }
        var message = try SIPHead.parse(buffer[start..<headEnd], limits: limits)
        // A stream cannot be delimited without Content-Length (RFC 3261 §18.3, §20.14).
        guard let length = try SIPHead.contentLength(message.headers) else { throw .invalidContentLength }
        guard bodyStart - start + length <= limits.maxMessageBytes else { throw .messageTooLarge(limit: limits.maxMessageBytes) }
        guard buffer.count - bodyStart >= length else {
            scanned = headEnd
            return nil
        }
        message.body = Array(buffer[bodyStart..<(bodyStart + length)])
        consume(to: bodyStart + length)
        return .message(message)
    }

    /// A keep-alive at the front of the buffer, consumed. A server waits for a CRLF to become a
    /// CRLFCRLF or to be followed by a message; a client reports a CRLF as a pong at once.
    private mutating func keepAlive() -> Event? {
        while bufferedCount >= 2, buffer[start] == 0x0D, buffer[start + 1] == 0x0A {
            if bufferedCount >= 4, buffer[start + 2] == 0x0D, buffer[start + 3] == 0x0A {
                consume(to: start + 4)
                return .ping
            }
            switch role {
            case .client:
                consume(to: start + 2)
                return .pong
            case .server:
                // Wait while the CRLF may still be the first half of a ping.
                if bufferedCount == 2 || (bufferedCount == 3 && buffer[start + 2] == 0x0D) { return nil }
                consume(to: start + 2)
            }
        }
        return nil
    }

    private mutating func consume(to index: Int) {
        start = index
        scanned = index
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 2 * limits.maxMessageBytes)
            start = 0
            scanned = 0
        }
    }
}
