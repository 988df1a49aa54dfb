/// Reassembles fragmented messages and validates control frames (RFC 6455 §5.4, §5.5, §8.1).
public struct WebSocketMessageAssembler: Sendable {
    public let maxMessageBytes: Int
    private var fragments: [UInt8] = []
    private var fragmentOpcode: WebSocketOpcode?

    public init(maxMessageBytes: Int = 1 << 20) { self.maxMessageBytes = maxMessageBytes }

    /// Feeds one frame; returns an event when a message or control frame is complete.
    public mutating func push(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketEvent? {
        switch frame.opcode {
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            return try Self.parseClose(frame.payload)
        case .text, .binary:
            // §5.4: a new data frame may not interleave with a fragmented message.
            guard fragmentOpcode == nil else { throw .expectedContinuation }
            guard frame.payload.count <= maxMessageBytes else {
                throw .messageTooBig(announced: UInt64(frame.payload.count), limit: maxMessageBytes)
            }
            if frame.fin { return try Self.message(frame.opcode, frame.payload) }
            fragmentOpcode = frame.opcode
            fragments = frame.payload
            return nil
        case .continuation:
            guard let opcode = fragmentOpcode else { throw .unexpectedContinuation }
            guard frame.payload.count <= maxMessageBytes - fragments.count else {
                throw .messageTooBig(announced: UInt64(fragments.count + frame.payload.count), limit: maxMessageBytes)
            }
            fragments.append(contentsOf: frame.payload)
            guard frame.fin else { return nil }
            fragmentOpcode = nil
            let payload = fragments
            fragments = []  // hands the storage over instead of copying it, and keeps none
            return try Self.message(opcode, payload)
        }
    }

    private static func message(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketEvent {
        guard opcode == .text else { return .message(.binary(payload)) }
        guard UTF8Validator.isValid(payload) else { throw .invalidUTF8 }
        return .message(.text(String(decoding: payload, as: UTF8.self)))
    }

    /// §5.5.1: empty, or a 2-byte code then a UTF-8 reason.
    static func parseClose(_ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketEvent {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .invalidClosePayload }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw .invalidClosePayload }
        let reason = payload[2...]
        guard UTF8Validator.isValid(reason) else { throw .invalidUTF8 }
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }
}

/// Frame parser plus assembler: bytes in, events out. This is the whole receive path of a connection.
///
/// ```swift
/// var reader = WebSocketReader(role: .server, maxMessageBytes: 1 << 20)
/// reader.append(bytes)
/// while let event = try reader.next() { … }
/// ```
public struct WebSocketReader: Sendable {
    public private(set) var parser: WebSocketFrameParser
    public private(set) var assembler: WebSocketMessageAssembler

    public init(role: WebSocketFrameParser.Role, maxMessageBytes: Int = 1 << 20) {
        parser = WebSocketFrameParser(role: role, maxFrameBytes: maxMessageBytes)
        assembler = WebSocketMessageAssembler(maxMessageBytes: maxMessageBytes)
    }

    public mutating func append(_ bytes: some Sequence<UInt8>) { parser.append(bytes) }
    public mutating func append(_ bytes: UnsafeRawBufferPointer) { parser.append(bytes) }

    /// The next event, or nil if more bytes are needed.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketEvent? {
        while let frame = try parser.next() {
            if let event = try assembler.push(frame) { return event }
        }
        return nil
    }
}
