/// How a message body is delimited (RFC 9112 §6.3).
enum HTTPBodyFraming: Sendable, Hashable {
    case empty
    case length(Int)
    case chunked
    /// Response bodies only: read until the connection closes (§6.3 rule 8).
    case untilClose

    /// Framing from `Transfer-Encoding` / `Content-Length`, rejecting ambiguous messages.
    /// `noLengthMeans` is `.empty` for requests (§6.3 rule 7) and `.untilClose` for responses.
    static func from(_ headers: HTTPHeaders, limits: HTTPLimits,
                     noLengthMeans fallback: HTTPBodyFraming) throws(HTTPParseError) -> HTTPBodyFraming {
        let codings = headers.tokens("Transfer-Encoding")
        let lengths = headers.values("Content-Length")
        if !codings.isEmpty {
            // §6.1: a message with both is an attack vector; we reject instead of guessing.
            guard lengths.isEmpty else { throw .conflictingFraming }
            guard codings == ["chunked"] else { throw .unsupportedTransferEncoding }
            return .chunked
        }
        guard !lengths.isEmpty else { return fallback }
        // §6.3 rule 5: a list of identical values is the same as one value.
        var length: Int?
        for field in lengths {
            for part in field.split(separator: ",", omittingEmptySubsequences: false) {
                let text = part.trimmingSpaces()
                guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy(isDigit), let n = Int(text) else {
                    throw .badContentLength
                }
                if let length, length != n { throw .badContentLength }
                length = n
            }
        }
        guard let length else { throw .badContentLength }
        guard length <= limits.maxBodyBytes else { throw .bodyTooLarge }
        return length == 0 ? .empty : .length(length)
    }
}

/// Reads one body with a given framing out of a buffer, incrementally.
struct HTTPBodyReader: Sendable {
    let framing: HTTPBodyFraming
    private(set) var body: [UInt8] = []
    private var chunked = ChunkedDecoder()

    init(framing: HTTPBodyFraming) {
        self.framing = framing
        // Grow with what arrives: a claimed length is not memory to set aside for the claimant.
        if case .length(let n) = framing { body.reserveCapacity(min(n, 16 * 1024)) }
    }

    /// Moves body bytes out of `buffer`; true once the body is complete.
    mutating func read(_ buffer: inout HTTPInputBuffer, limits: HTTPLimits) throws(HTTPParseError) -> Bool {
        switch framing {
        case .empty:
            return true
        case .length(let n):
            let take = min(n - body.count, buffer.count)
            body.append(contentsOf: buffer.take(take))
            return body.count == n
        case .chunked:
            return try chunked.decode(&buffer, into: &body, limits: limits)
        case .untilClose:
            guard buffer.count <= limits.maxBodyBytes - body.count else { throw .bodyTooLarge }
            body.append(contentsOf: buffer.take(buffer.count))
            return false
        }
    }
}
