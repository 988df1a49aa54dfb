/// A request method (RFC 3261 §7.1, §27.4): the registered ones by name, any other `token` as
/// ``extension(_:)``. Methods are case-sensitive (`invite` is an extension method).
public enum SIPMethod: Sendable, Hashable, CustomStringConvertible {
    case invite, ack, bye, cancel, register, options
    /// RFC 3262.
    case prack
    /// RFC 6665.
    case subscribe, notify
    /// RFC 3903.
    case publish
    /// RFC 6086.
    case info
    /// RFC 3515.
    case refer
    /// RFC 3428.
    case message
    /// RFC 3311.
    case update
    /// Any other method token, e.g. RFC 4475's `!interesting-Method0123456789_*+\`.%indeed'~`.
    case `extension`(String)

    /// The method for a token (nil when `text` is not a `token`, RFC 3261 §25.1).
    public init?(_ text: some StringProtocol) {
        guard SIPCharacters.token.containsAll(text) else { return nil }
        self = Self.known[String(text)] ?? .extension(String(text))
    }

    public var description: String {
        switch self {
        case .invite: "INVITE"
        case .ack: "ACK"
        case .bye: "BYE"
        case .cancel: "CANCEL"
        case .register: "REGISTER"
        case .options: "OPTIONS"
        case .prack: "PRACK"
        case .subscribe: "SUBSCRIBE"
        case .notify: "NOTIFY"
        case .publish: "PUBLISH"
        case .info: "INFO"
        case .refer: "REFER"
        case .message: "MESSAGE"
        case .update: "UPDATE"
        case .extension(let name): name
        }
    }

    private static let known: [String: SIPMethod] = Dictionary(
        uniqueKeysWithValues: [SIPMethod.invite, .ack, .bye, .cancel, .register, .options, .prack, .subscribe, .notify,
                               .publish, .info, .refer, .message, .update].map { ($0.description, $0) })
}
