/// The audio codec of a stream, by its RTP encoding name in lower case ("opus", "pcmu", "pcma").
/// Open-ended: any other name is kept as given.
public struct CodecName: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Lower-cases `rawValue` so that SDP's "PCMU" and "pcmu" compare equal.
    public init(rawValue: String) { self.rawValue = rawValue.lowercased() }

    public static let opus = CodecName(rawValue: "opus")
    public static let pcmu = CodecName(rawValue: "pcmu")
    public static let pcma = CodecName(rawValue: "pcma")

    /// G.711 (PCMU or PCMA): no concealment or redundancy, so it tolerates less loss than Opus.
    public var isG711: Bool { self == .pcmu || self == .pcma }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
