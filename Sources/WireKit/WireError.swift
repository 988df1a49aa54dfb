/// Why a pure parser refused its input. Parsers add their own cases by wrapping `.malformed`.
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before a field it announced.
    case truncated(needed: Int, available: Int)
    /// A field holds a value the format forbids.
    case malformed(String)

    public var description: String {
        switch self {
        case .truncated(let needed, let available): "truncated: needed \(needed) bytes, \(available) left"
        case .malformed(let why): "malformed: \(why)"
        }
    }
}
