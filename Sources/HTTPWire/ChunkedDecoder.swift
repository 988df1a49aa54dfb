/// Incremental decoder for the chunked transfer coding (RFC 9112 §7.1). Chunk extensions are ignored
/// and trailer fields are discarded (§7.1.1, §7.1.2).
struct ChunkedDecoder: Sendable, Hashable {
    enum State: Sendable, Hashable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailer
        case done
    }

    private(set) var state = State.size

    /// Decodes what it can from `buffer` into `body`; true once the last chunk and trailers are read.
    mutating func decode(_ buffer: inout HTTPInputBuffer, into body: inout [UInt8],
                         limits: HTTPLimits) throws(HTTPParseError) -> Bool {
        while true {
            switch state {
            case .size:
                guard let line = try Self.line(&buffer, limit: limits.maxChunkLineBytes) else { return false }
                let size = try Self.chunkSize(line, room: limits.maxBodyBytes - body.count)
                state = size == 0 ? .trailer : .data(remaining: size)
            case .data(let remaining):
                guard !buffer.isEmpty else { return false }
                let n = min(remaining, buffer.count)
                body.append(contentsOf: buffer.take(n))
                state = n == remaining ? .dataEnd : .data(remaining: remaining - n)
            case .dataEnd:
                guard buffer.count >= 1 else { return false }
                if buffer[0] == 0x0A { buffer.consume(1); state = .size; continue }
                guard buffer.count >= 2 else { return false }
                guard buffer[0] == 0x0D, buffer[1] == 0x0A else { throw .badChunk }
                buffer.consume(2)
                state = .size
            case .trailer:
                guard let line = try Self.line(&buffer, limit: limits.maxChunkLineBytes) else { return false }
                if line.isEmpty { state = .done }
            case .done:
                return true
            }
        }
    }

    /// One line without its CRLF or LF, consumed; nil if incomplete.
    private static func line(_ buffer: inout HTTPInputBuffer, limit: Int) throws(HTTPParseError) -> [UInt8]? {
        guard let lf = buffer.firstIndex(of: 0x0A, limit: limit + 2) else {
            if buffer.count > limit + 2 { throw .badChunk }
            return nil
        }
        var line = Array(buffer.take(lf + 1).dropLast())
        if line.last == 0x0D { line.removeLast() }
        return line
    }

    /// `chunk-size [ chunk-ext ]`: hex digits, then optional whitespace and `;` extensions.
    private static func chunkSize(_ line: [UInt8], room: Int) throws(HTTPParseError) -> Int {
        var size = 0
        var digits = 0
        var i = 0
        while i < line.count, let v = hexValue(line[i]) {
            digits += 1
            guard digits <= 15 else { throw .bodyTooLarge }
            size = size << 4 | Int(v)
            i += 1
        }
        guard digits > 0 else { throw .badChunk }
        while i < line.count, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
        guard i == line.count || line[i] == UInt8(ascii: ";") else { throw .badChunk }
        guard size <= room else { throw .bodyTooLarge }
        return size
    }
}

func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case 0x30...0x39: c - 0x30
    case 0x41...0x46: c - 0x41 + 10
    case 0x61...0x66: c - 0x61 + 10
    default: nil
    }
}
