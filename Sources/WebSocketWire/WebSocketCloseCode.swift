/// A close status code (RFC 6455 §7.4). Unknown codes in the valid ranges round-trip.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let normalClosure = WebSocketCloseCode(1000)
    public static let goingAway = WebSocketCloseCode(1001)
    public static let protocolError = WebSocketCloseCode(1002)
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// Reserved: never sent, reported when a close frame had no code (§7.1.5).
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// Reserved: never sent, reported when the connection dropped without a close frame (§7.1.5).
    public static let abnormalClosure = WebSocketCloseCode(1006)
    public static let invalidPayload = WebSocketCloseCode(1007)
    public static let policyViolation = WebSocketCloseCode(1008)
    public static let messageTooBig = WebSocketCloseCode(1009)
    public static let mandatoryExtension = WebSocketCloseCode(1010)
    public static let internalError = WebSocketCloseCode(1011)

    /// Whether the code may appear in a close frame on the wire (§7.4.1, §7.4.2).
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 1012...1014: true
        case 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}
