import HTTPWire
import JSONWire
import ParleyCrypto
import ParleyNet
import Signaling

/// Relays pushes to a configured URL (the `ClientNotificationUrl` pattern): a `POST` of the
/// notification's payload plus `device_token` and `identity`, as JSON, with the HTTP/1.1 client.
/// Any 2xx answer means delivered; 410 means the device token is dead.
///
/// Each push is signed as the vendor signs JSON webhooks, with the auth token of the call's
/// account: the URL gets `bodySHA256=<hex SHA-256 of the body>` in its query, and
/// `X-Twilio-Signature` is the signature of that URL alone, so the `twilio` library's
/// `RequestValidator.validate(url, body, signature)` checks it.
public final class WebhookPushProvider: PushProvider {
    public let kind = "webhook"
    public let url: String
    public let timeout: Duration
    private let client: HTTPClient
    private let ownsClient: Bool
    private let authToken: (@Sendable (_ accountSid: String) -> String?)?

    /// `client` is shared when given (the server's own); otherwise the provider makes one.
    /// `authToken` gives the signing key of an account (nil: pushes go unsigned).
    public init(url: String, client: HTTPClient? = nil, timeout: Duration = .seconds(10),
                authToken: (@Sendable (_ accountSid: String) -> String?)? = nil) throws(PushError) {
        self.authToken = authToken
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
        let body = Self.body(for: notification, deviceToken: deviceToken)
        var request = HTTPRequest(method: "POST", body: body)
        request.headers.add("Content-Type", "application/json")
        var target = url
        if let key = authToken?(notification.accountSid), !key.isEmpty {
            target = WebhookSignature.url(url, addingBodySHA256Of: body)
            request.headers.set(WebhookSignature.headerName, WebhookSignature.compute(url: target, parameters: [], authToken: key))
        }
        let response: HTTPResponse
        do {
            response = try await client.send(request, to: target, timeout: timeout)
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
