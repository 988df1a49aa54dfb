/// Why a VP8 payload was refused (the one error type of the target). Parsing never traps.
public enum VP8ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which field the input ended in.
    public enum Field: String, Sendable {
        case descriptor, extensionByte, pictureID, tl0PictureIndex, layerByte, frameHeader, keyFrameHeader
    }

    /// The payload ended inside `field`.
    case truncated(Field)
    /// A key frame without the 0x9D 0x01 0x2A start code (RFC 6386 §9.1).
    case badStartCode

    public var description: String {
        switch self {
        case .truncated(let field): "vp8: payload ends inside the \(field.rawValue)"
        case .badStartCode: "vp8: key frame without its start code"
        }
    }
}
