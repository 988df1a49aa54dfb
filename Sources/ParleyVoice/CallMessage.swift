import Foundation

/// A user-defined message sent within a call (the seed's `TVOCallMessage`): content type
/// `application/json` by default, body at most 10 KiB, at most 10 per minute per call.
public struct CallMessage: Sendable, Hashable {
    /// The largest body the server accepts, in bytes.
    public static let maximumBodyBytes = 10 * 1024

    public var content: String
    public var contentType: String
    /// `user-defined-message`, the only type the server relays.
    public var messageType: String
    /// Set by the SDK when sending: the id `messageSent`/`messageFailed` report.
    public internal(set) var voiceEventSid: String

    public init(content: String, contentType: String = "application/json", messageType: String = "user-defined-message") {
        self.content = content
        self.contentType = contentType
        self.messageType = messageType
        voiceEventSid = "KX" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
