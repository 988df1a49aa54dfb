import AccessToken
import HTTPWire
import ParleyNet

/// Relays pushes to a configured URL (the `ClientNotificationUrl` pattern): a `POST` of the
/// notification's payload plus `device_token` and `identity`, as JSON, with the HTTP/1.1 client.
/// Any 2xx answer means delivered; 410 means the device token is dead.
public final class WebhookPushProvider: PushProvider {
    public let kind = "webhook"
    public let url: String
    public let timeout: Duration
    private let client: HTTPClient
    private let ownsClient: Bool

    /// `client` is shared when given (the server's own); otherwise the provider makes one.
    public init(url: String, client: HTTPClient? = nil, timeout: Duration = .seconds(10)) throws(PushError) {
        do {
            _ = try Endpoint(url: url)
        } catch {
            throw .configuration("webhook URL: \(error)")
        }
        self.url = url
        self.timeout = timeout
        if let client {
            self.client = client
            ownsClient = false
        } else {
            do {
                self.client = try HTTPClient()
            } catch {
                throw .configuration("HTTP client: \(error)")
            }
            ownsClient = true
        }
    }

    /// The JSON body posted for `notification` to `deviceToken`.
    public static func body(for notification: VoicePushNotification, deviceToken: String) -> [UInt8] {
        var object = notification.payload
        object["device_token"] = .string(deviceToken)
        object["identity"] = .string(notification.recipientIdentity)
        return JSONValue.object(object).serialized()
    }

    public func send(_ notification: VoicePushNotification, deviceToken: String) async throws(PushError) {
        var request = HTTPRequest(method: "POST", body: Self.body(for: notification, deviceToken: deviceToken))
        request.headers.add("Content-Type", "application/json")
        let response: HTTPResponse
        do {
            response = try await client.send(request, to: url, timeout: timeout)
        } catch {
            throw .temporary(status: nil, reason: "\(error)")
        }
        switch response.status {
        case 200...299: return
        case 410: throw .unregistered(reason: "webhook answered 410")
        case 408, 429, 500...599: throw .temporary(status: response.status, reason: "webhook answered \(response.status)")
        default: throw .rejected(status: response.status, reason: "webhook answered \(response.status)")
        }
    }

    /// Stops the provider's own HTTP client (a shared one is left alone).
    public func shutdown() {
        if ownsClient { client.shutdown() }
    }
}
