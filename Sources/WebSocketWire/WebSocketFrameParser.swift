/// Incremental frame parser (RFC 6455 §5.2). The announced length is checked against `maxFrameBytes`
/// as soon as the length field arrives, before any payload is buffered, so a header announcing 1 GB
/// fails with `.messageTooBig` (close code 1009) after reading at most 10 bytes.
public struct WebSocketFrameParser: Sendable {
    /// Which end we are: a server requires masked frames, a client requires unmasked ones (§5.1).
    public enum Role: Sendable, Hashable {
        case server
        case client
    }

    public let role: Role
    public let maxFrameBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var failure: WebSocketProtocolError?

    public init(role: Role, maxFrameBytes: Int = 1 << 20) {
        self.role = role
        self.maxFrameBytes = maxFrameBytes
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - start }

    /// The next complete frame, or nil if more bytes are needed. After an error the parser stays failed.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        if let failure { throw failure }
        do {
            return try parseFrame()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func parseFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let b0 = buffer[start], b1 = buffer[start + 1]
        guard b0 & 0x70 == 0 else { throw .reservedBitsSet }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else { throw .unknownOpcode(b0 & 0x0F) }
        let fin = b0 & 0x80 != 0
        let masked = b1 & 0x80 != 0
        guard masked == (role == .server) else { throw .maskingViolation }
        var length = UInt64(b1 & 0x7F)
        var offset = 2
        if opcode.isControl {
            // §5.5: control frames are never fragmented and carry at most 125 bytes.
            guard fin, length <= 125 else { throw .invalidControlFrame }
        }
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            guard length >= 126 else { throw .invalidLength }
            offset = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for i in 2..<10 { length = length << 8 | UInt64(buffer[start + i]) }
            guard length >> 63 == 0, length > 0xFFFF else { throw .invalidLength }
            offset = 10
        }
        // Checked before waiting for (or allocating) the payload.
        guard length <= UInt64(maxFrameBytes) else { throw .messageTooBig(announced: length, limit: maxFrameBytes) }
        let n = Int(length)
        var key: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        if masked {
            guard available >= offset + 4 else { return nil }
            key = (buffer[start + offset], buffer[start + offset + 1], buffer[start + offset + 2], buffer[start + offset + 3])
            offset += 4
        }
        guard available - offset >= n else { return nil }
        let base = start + offset
        var payload = [UInt8](repeating: 0, count: n)
        if masked {
            let k = [key.0, key.1, key.2, key.3]
            for i in 0..<n { payload[i] = buffer[base + i] ^ k[i & 3] }
        } else {
            for i in 0..<n { payload[i] = buffer[base + i] }
        }
        start = base + n
        if start == buffer.count {
            buffer = []  // nothing pending: an idle connection keeps no storage
            start = 0
        }
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }

    private mutating func compact() {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }
}
