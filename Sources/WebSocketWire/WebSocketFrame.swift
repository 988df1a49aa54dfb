/// One WebSocket frame (RFC 6455 §5.2) with its payload unmasked.
public struct WebSocketFrame: Sendable, Hashable {
    public var fin: Bool
    public var opcode: WebSocketOpcode
    public var payload: [UInt8]
    /// The masking key to apply when serializing (clients must mask, §5.3); nil for unmasked.
    public var maskingKey: UInt32?

    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = [], maskingKey: UInt32? = nil) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
        self.maskingKey = maskingKey
    }

    /// A close frame: a 2-byte code then a UTF-8 reason, truncated so the payload fits 125 bytes (§5.5.1).
    public static func close(code: WebSocketCloseCode?, reason: String = "", maskingKey: UInt32? = nil) -> WebSocketFrame {
        var payload: [UInt8] = []
        if let code {
            payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
            var reasonBytes = Array(reason.utf8.prefix(123))
            while !reasonBytes.isEmpty && !UTF8Validator.isValid(reasonBytes) { reasonBytes.removeLast() }
            payload += reasonBytes
        }
        return WebSocketFrame(opcode: .close, payload: payload, maskingKey: maskingKey)
    }

    /// Header plus payload size on the wire.
    public var serializedSize: Int {
        let n = payload.count
        let lengthBytes = n < 126 ? 0 : (n <= 0xFFFF ? 2 : 8)
        return 2 + lengthBytes + (maskingKey == nil ? 0 : 4) + n
    }

    /// Appends the frame, masking the payload if `maskingKey` is set (§5.3).
    public func serialize(into out: inout [UInt8]) {
        out.reserveCapacity(out.count + serializedSize)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        let n = payload.count
        if n < 126 {
            out.append(maskBit | UInt8(n))
        } else if n <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(n >> 8)); out.append(UInt8(n & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: n >> shift)) }
        }
        guard let key = maskingKey else {
            out.append(contentsOf: payload)
            return
        }
        let k = [UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF)]
        out.append(contentsOf: k)
        for (i, byte) in payload.enumerated() { out.append(byte ^ k[i & 3]) }
    }

    /// The serialized frame.
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }
}
