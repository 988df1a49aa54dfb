/// A Y4M or IVF parse failure: what was wrong, never where the parser would have trapped.
public enum VideoContainerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes do not start with the format's signature (`YUV4MPEG2 `, `FRAME`, `DKIF`).
    case badSignature
    /// The input ended inside a header or a frame.
    case truncated
    /// A header line longer than the parser accepts.
    case headerTooLong(limit: Int)
    /// A required parameter (`W`, `H`) is absent.
    case missingParameter(String)
    /// A parameter whose value does not parse or is out of range.
    case invalidParameter(String)
    /// A Y4M colour space other than 4:2:0 (`C420`, `C420jpeg`, `C420mpeg2`, `C420paldv`).
    case unsupportedColorspace(String)
    /// An IVF version, header size or codec other than version 0, 32 bytes, VP8.
    case unsupportedIVF(String)
    /// A picture or frame larger than the limits (`VideoLimits`).
    case tooLarge(String)

    public var description: String {
        switch self {
        case .badSignature: "bad signature"
        case .truncated: "truncated"
        case .headerTooLong(let limit): "header line longer than \(limit) bytes"
        case .missingParameter(let name): "missing parameter \(name)"
        case .invalidParameter(let name): "invalid parameter \(name)"
        case .unsupportedColorspace(let name): "unsupported colour space \(name) (4:2:0 only)"
        case .unsupportedIVF(let what): "unsupported IVF \(what)"
        case .tooLarge(let what): "\(what) too large"
        }
    }
}
