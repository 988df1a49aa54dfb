/// A violation of RFC 6455 by the peer; `closeCode` is what to send in the close frame.
public enum WebSocketProtocolError: Error, Sendable, Hashable {
    /// RSV bits set without a negotiated extension (§5.2).
    case reservedBitsSet
    /// Opcode 3–7 or 0xB–0xF (§5.2).
    case unknownOpcode(UInt8)
    /// A control frame with FIN clear or a payload over 125 bytes (§5.5).
    case invalidControlFrame
    /// A client frame without a mask, or a server frame with one (§5.1).
    case maskingViolation
    /// A 64-bit length with the most significant bit set, or a non-minimal length (§5.2).
    case invalidLength
    /// A frame or message larger than the configured limit (close code 1009).
    case messageTooBig(announced: UInt64, limit: Int)
    /// Continuation without a message in progress, or a new message before the last ended (§5.4).
    case unexpectedContinuation
    case expectedContinuation
    /// Text or a close reason that is not UTF-8 (§8.1, close code 1007).
    case invalidUTF8
    /// A close frame with a one-byte payload or a code not allowed on the wire (§5.5.1, §7.4).
    case invalidClosePayload

    /// The close code to answer with.
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .messageTooBig: .messageTooBig
        case .invalidUTF8: .invalidPayload
        default: .protocolError
        }
    }
}
