import Signaling

/// Why a push notification was not delivered, grouped by what the server should do about it.
public enum PushError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device token is no longer valid for the topic (APNs 410 `Unregistered`/`ExpiredToken`,
    /// or a webhook's 410): delete the push binding.
    case unregistered(reason: String)
    /// The device token is malformed or belongs to another app (APNs 400 `BadDeviceToken`,
    /// `DeviceTokenNotForTopic`): delete the push binding.
    case badDeviceToken(reason: String)
    /// The provider's credentials were refused (APNs 403, e.g. `InvalidProviderToken`): fix the
    /// configuration; retrying will not help.
    case authentication(reason: String)
    /// A temporary failure (429, 5xx, timeouts, connection failures): retry later with backoff.
    case temporary(status: Int?, reason: String)
    /// Refused for another reason (other 4xx, payload too large): retrying the same push will not help.
    case rejected(status: Int, reason: String)
    /// The provider is misconfigured (unreadable key, bad URL).
    case configuration(String)

    /// Whether sending the same notification again later may succeed.
    public var isRetryable: Bool {
        if case .temporary = self { return true }
        return false
    }

    /// Whether the binding's device token is dead and the binding should be removed.
    public var invalidatesBinding: Bool {
        switch self {
        case .unregistered, .badDeviceToken: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .unregistered(let reason): "push: device token unregistered (\(reason))"
        case .badDeviceToken(let reason): "push: bad device token (\(reason))"
        case .authentication(let reason): "push: provider credentials refused (\(reason))"
        case .temporary(let status, let reason): "push: temporary failure\(status.map { " \($0)" } ?? ""): \(reason)"
        case .rejected(let status, let reason): "push: rejected \(status): \(reason)"
        case .configuration(let reason): "push: configuration: \(reason)"
        }
    }
}

/// Delivers incoming-call notifications to devices of one kind.
public protocol PushProvider: Sendable {
    /// `apns` or `webhook`, as stored with a push binding.
    var kind: String { get }
    /// Delivers `notification` to the device with `deviceToken`.
    func send(_ notification: VoicePushNotification, deviceToken: String) async throws(PushError)
}
