import AccessToken
import ParleyCore
import ParleyCrypto
import ParleyNet
import Signaling
import Synchronization

/// Sends VoIP pushes through APNs over HTTP/2 with token-based authentication: one connection,
/// `POST /3/device/<token>` with `apns-push-type: voip`, `apns-topic: <bundle>.voip`,
/// `apns-priority: 10`, `apns-expiration: 0` and `authorization: bearer <provider token>`.
public final class APNsProvider: PushProvider {
    /// APNs refuses VoIP payloads above 5 KB.
    public static let maxPayloadBytes = 5120

    public let kind = "apns"
    public let configuration: APNsConfiguration
    private let client: HTTP2Client
    private let token: Mutex<APNsProviderToken>
    private let clock: @Sendable () -> Int64

    /// Loads the key and prepares the connection (opened on the first push). `clock` gives Unix
    /// seconds for the provider token.
    public init(configuration: APNsConfiguration, clock: @escaping @Sendable () -> Int64 = WallClock.now) throws(PushError) {
        let key: P256SigningKey
        do {
            key = try P256SigningKey(pemFile: configuration.keyPath)
        } catch {
            throw .configuration("APNs key \(configuration.keyPath): \(error.message)")
        }
        do {
            client = try HTTP2Client(url: configuration.endpoint, configuration: HTTP2Client.Configuration(
                tls: .client(trustRootsPath: configuration.trustRootsPath), requestTimeout: configuration.requestTimeout,
                connectTimeout: configuration.requestTimeout, maxResponseBodyBytes: 64 * 1024))
        } catch {
            throw .configuration("APNs endpoint \(configuration.endpoint): \(error)")
        }
        self.configuration = configuration
        self.clock = clock
        token = Mutex(APNsProviderToken(key: key, keyID: configuration.keyID, teamID: configuration.teamID,
                                        refreshInterval: configuration.tokenRefreshInterval))
    }

    /// Pushes `notification` to the device whose APNs token is `deviceToken` (hex). A provider token
    /// APNs reports expired is replaced and the push retried once.
    public func send(_ notification: VoicePushNotification, deviceToken: String) async throws(PushError) {
        guard let device = Self.normalizedDeviceToken(deviceToken) else {
            throw .badDeviceToken(reason: "device token is not hexadecimal")
        }
        let body = notification.payloadJSON
        guard body.count <= Self.maxPayloadBytes else {
            throw .rejected(status: 413, reason: "PayloadTooLarge")
        }
        for attempt in 1...2 {
            let jwt = try token.withLock { (token: inout APNsProviderToken) throws(PushError) in try token.token(now: clock()) }
            let response: HTTP2Response
            do {
                response = try await client.send(method: "POST", path: "/3/device/\(device)", headers: [
                    ("authorization", "bearer \(jwt)"),
                    ("apns-push-type", "voip"),
                    ("apns-topic", configuration.topic),
                    ("apns-priority", "10"),
                    ("apns-expiration", "0"),
                    ("content-type", "application/json"),
                ], body: body)
            } catch {
                throw .temporary(status: nil, reason: "\(error)")
            }
            guard let failure = APNsResponse.error(status: response.status, body: response.body) else {
                Log.debug(.core, "APNs accepted \(notification.messageType.rawValue) for call \(notification.callSid)")
                return
            }
            if case .authentication(let reason) = failure, reason == "ExpiredProviderToken", attempt == 1 {
                token.withLock { $0.invalidate() }
                continue
            }
            throw failure
        }
    }

    /// Closes the APNs connection (GOAWAY) and stops its event loop.
    public func shutdown() async {
        await client.shutdown()
    }

    /// The token as lowercase hex, or nil if it is not an even number (2 to 400) of hex digits.
    /// Spaces and angle brackets (as `NSData.description` prints tokens) are removed first.
    public static func normalizedDeviceToken(_ token: String) -> String? {
        let hex = token.filter { $0 != " " && $0 != "<" && $0 != ">" }.lowercased()
        guard (2...400).contains(hex.utf8.count), hex.utf8.count % 2 == 0,
              hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        return hex
    }
}
