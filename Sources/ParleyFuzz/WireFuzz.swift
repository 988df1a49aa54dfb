import HTTPWire
import WebSocketWire

/// Feeds bytes to the HTTP request and response parsers, split in two at a point taken from the
/// input itself so the incremental paths (a head or chunk cut anywhere) are exercised too.
enum HTTPFuzz {
    static let limits = HTTPLimits(maxHeaderBytes: 4096, maxHeaderCount: 32, maxBodyBytes: 64 * 1024)

    static func run(_ data: UnsafeRawBufferPointer) {
        let split = data.isEmpty ? 0 : Int(data[0]) % (data.count + 1)
        var requests = HTTPRequestParser(limits: limits)
        var responses = HTTPResponseParser(limits: limits)
        for part in [UnsafeRawBufferPointer(rebasing: data[..<split]), UnsafeRawBufferPointer(rebasing: data[split...])] {
            requests.append(part)
            responses.append(part)
            do {
                while let request = try requests.next() { _ = request.serialized }
                // What a server's admission check reads of a request whose body is still coming.
                _ = requests.pendingHead?.serialized
                _ = requests.pendingBodyByteCount
            } catch { requests = HTTPRequestParser(limits: limits) }
            do {
                while let response = try responses.next() { _ = response.serialized }
            } catch { responses = HTTPResponseParser(limits: limits) }
        }
        _ = try? responses.finish()
    }
}

/// Feeds bytes to the WebSocket frame parser (as server and as client) and assembles messages.
enum WebSocketFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        for role in [WebSocketFrameParser.Role.server, .client] {
            var parser = WebSocketFrameParser(role: role, maxFrameBytes: 64 * 1024)
            var assembler = WebSocketMessageAssembler(maxMessageBytes: 64 * 1024)
            let split = data.isEmpty ? 0 : Int(data[0]) % (data.count + 1)
            for part in [UnsafeRawBufferPointer(rebasing: data[..<split]), UnsafeRawBufferPointer(rebasing: data[split...])] {
                parser.append(part)
                do {
                    while let frame = try parser.next() { _ = try assembler.push(frame) }
                } catch { break }
            }
        }
    }
}
