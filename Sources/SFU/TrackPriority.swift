/// A track's priority (Twilio's `Track.Priority`: low, standard, high), ordered.
public enum TrackPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    case low, standard, high

    /// From its name in signaling and REST (`low`, `standard`, `high`).
    public init?(name: String) {
        switch name {
        case "low": self = .low
        case "standard": self = .standard
        case "high": self = .high
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .low: "low"
        case .standard: "standard"
        case .high: "high"
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
