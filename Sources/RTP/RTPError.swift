/// Why an RTP packet or header extension was refused.
///
/// One error enum for the target (like pion's `errors.go`): parsing never traps, it throws one of
/// these, and serializing into a caller-provided buffer throws `.bufferTooSmall`.
public enum RTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input ended before a field it announced (fixed header, CSRC list, extension header).
    case truncated(needed: Int, available: Int)
    /// The version field is not 2 (RFC 3550 §5.1).
    case unsupportedVersion(UInt8)
    /// The P bit is set but the pad count is zero or exceeds the bytes after the header (§5.1).
    case invalidPadding(count: Int, available: Int)
    /// The header extension's length field points past the end of the packet (§5.3.1).
    case extensionPastEnd(declared: Int, available: Int)
    /// An RFC 8285 element runs past the end of the extension data.
    case malformedExtensionElement(offset: Int)
    /// An element cannot be encoded: id or length outside what the chosen form allows (RFC 8285 §4.2, §4.3).
    case invalidExtensionElement(id: UInt8, length: Int)
    /// A value-level helper (abs-send-time, audio level, …) got fewer bytes than its format needs.
    case elementTooShort(needed: Int, available: Int)
    /// A caller-provided output buffer cannot hold the serialized packet.
    case bufferTooSmall(needed: Int, available: Int)

    public var description: String {
        switch self {
        case .truncated(let needed, let available): "rtp: truncated: needed \(needed) bytes, \(available) left"
        case .unsupportedVersion(let v): "rtp: unsupported version \(v)"
        case .invalidPadding(let count, let available): "rtp: pad count \(count) with \(available) bytes after header"
        case .extensionPastEnd(let declared, let available): "rtp: extension of \(declared) bytes, \(available) left"
        case .malformedExtensionElement(let offset): "rtp: extension element at \(offset) runs past the end"
        case .invalidExtensionElement(let id, let length): "rtp: cannot encode extension element id \(id) length \(length)"
        case .elementTooShort(let needed, let available): "rtp: element needs \(needed) bytes, has \(available)"
        case .bufferTooSmall(let needed, let available): "rtp: buffer of \(available) bytes, need \(needed)"
        }
    }
}
