/// Why an HPACK field block could not be decoded (RFC 7541). Every case but `headerListTooLarge`
/// leaves the dynamic table unusable, so HTTP/2 treats it as a connection error of type
/// COMPRESSION_ERROR (RFC 9113 §4.3).
public enum HPACKError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The block ended inside a representation.
    case truncated
    /// An integer (§5.1) is larger than this decoder accepts.
    case integerOverflow
    /// An index is zero or beyond the static and dynamic tables (§2.3.3).
    case invalidIndex(Int)
    /// A Huffman string (§5.2) has padding longer than 7 bits, padding that is not the EOS prefix,
    /// or contains EOS.
    case invalidHuffman
    /// A dynamic table size update above the SETTINGS_HEADER_TABLE_SIZE limit (§6.3).
    case tableSizeAboveLimit(Int)
    /// A dynamic table size update after the first field representation (§4.2).
    case misplacedTableSizeUpdate
    /// The decoded field list exceeds the configured maximum (RFC 9113 §6.5.2,
    /// SETTINGS_MAX_HEADER_LIST_SIZE). The dynamic table is still consistent: a stream error.
    case headerListTooLarge(Int)

    /// The RFC 9113 error code the connection reports.
    public var http2ErrorCode: HTTP2ErrorCode {
        if case .headerListTooLarge = self { return .protocolError }
        return .compressionError
    }

    /// Whether the decoder's state is still in step with the peer's encoder.
    public var isRecoverable: Bool {
        if case .headerListTooLarge = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .truncated: "HPACK block truncated"
        case .integerOverflow: "HPACK integer too large"
        case .invalidIndex(let i): "HPACK index \(i) out of range"
        case .invalidHuffman: "invalid HPACK Huffman string"
        case .tableSizeAboveLimit(let n): "HPACK table size update to \(n) above the limit"
        case .misplacedTableSizeUpdate: "HPACK table size update after a field"
        case .headerListTooLarge(let n): "header list of \(n) octets exceeds the limit"
        }
    }
}
