import Foundation
import JSONWire
import Synchronization
import HTTPWire
import ParleyCore
import ParleyNet
import Signaling

extension Voice {
    /// The push provider bindings are registered with: `apns` for Apple VoIP pushes, `webhook`
    /// when the server relays payloads to your own push service.
    public static var pushProvider: String {
        get { VoiceSettings.shared.withLock { $0.pushProvider } }
        set { VoiceSettings.shared.withLock { $0.pushProvider = newValue } }
    }

    /// Binds the token's identity to `deviceToken` so incoming calls arrive as pushes (one-year
    /// TTL, renewed whenever a push is sent). The token is kept in memory to answer pushed invites.
    public static func register(accessToken: String, deviceToken: Data) async throws(ParleyError) {
        let body: JSONObject = ["device_token": .string(deviceToken.hexString), "provider": .string(pushProvider)]
        do {
            _ = try await registrationRequest("POST", path: "/v1/registrations", token: accessToken,
                                              body: JSONValue.object(body).serialized())
        } catch {
            publishRegistration("registration-error", token: accessToken, error: error)
            throw error
        }
        VoiceSettings.shared.withLock { $0.registeredToken = accessToken }
        publishRegistration("registration", token: accessToken, error: nil)
    }

    /// Removes the binding: no more pushes for this device.
    public static func unregister(accessToken: String, deviceToken: Data) async throws(ParleyError) {
        do {
            _ = try await registrationRequest("DELETE", path: "/v1/registrations/\(deviceToken.hexString)",
                                              token: accessToken, body: [])
        } catch {
            publishRegistration("unregistration-error", token: accessToken, error: error)
            throw error
        }
        publishRegistration("unregistration", token: accessToken, error: nil)
        VoiceSettings.shared.withLock { settings in
            if settings.registeredToken == accessToken { settings.registeredToken = nil }
        }
    }

    /// The completion-handler form of `register`.
    public static func register(accessToken: String, deviceToken: Data,
                                completion: @escaping @Sendable (ParleyError?) -> Void) {
        Task.detached {
            do throws(ParleyError) { try await register(accessToken: accessToken, deviceToken: deviceToken); completion(nil) }
            catch { completion(error) }
        }
    }

    /// The completion-handler form of `unregister`.
    public static func unregister(accessToken: String, deviceToken: Data,
                                  completion: @escaping @Sendable (ParleyError?) -> Void) {
        Task.detached {
            do throws(ParleyError) { try await unregister(accessToken: accessToken, deviceToken: deviceToken); completion(nil) }
            catch { completion(error) }
        }
    }

    /// Turns a push payload (`twi_message_type` …) into `callInviteReceived` or
    /// `cancelledCallInviteReceived` on `delegateQueue` (main by default). Returns false when the
    /// payload is not a Parley/Twilio voice push.
    @discardableResult
    public static func handleNotification(_ payload: [AnyHashable: Any], delegate: any NotificationDelegate,
                                          delegateQueue: DispatchQueue? = nil,
                                          callMessageDelegate: (any CallMessageDelegate)? = nil) -> Bool {
        var strings: [String: String] = [:]
        for (key, value) in payload {
            guard let key = key as? String else { continue }
            if let text = value as? String { strings[key] = text }
        }
        guard let push = VoicePushNotification(dictionary: strings) else { return false }
        let queue = delegateQueue ?? .main
        let parameters = Dictionary(push.customParameters.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        switch push.messageType {
        case .call:
            let invite = CallInvite(callSid: push.callSid, from: push.from, to: push.to, customParameters: parameters,
                                    callerInfo: nil, listener: nil, edge: Voice.edge)
            queue.async { delegate.callInviteReceived(invite) }
        case .cancel:
            let cancelled = CancelledCallInvite(callSid: push.callSid, from: push.from, to: push.to,
                                                customParameters: parameters)
            let error = ParleyError(.callCancelled, reason: "the call was cancelled")
            queue.async { delegate.cancelledCallInviteReceived(cancelled, error: error) }
        }
        return true
    }

    private static func publishRegistration(_ name: String, token: String, error: ParleyError?) {
        let payload = error.map { ["code": "\($0.code.rawValue)", "message": $0.failureReason ?? $0.code.text] } ?? [:]
        InsightsPublisher.shared.publish(group: "registration", name: name, level: error == nil ? .info : .error,
                                         callSid: nil, payload: payload, token: token)
    }

    private static func registrationRequest(_ method: String, path: String, token: String,
                                            body: [UInt8]) async throws(ParleyError) -> HTTPResponse {
        let server = try VoiceSettings.server(for: nil)
        var request = HTTPRequest(method: method, target: path, body: body)
        request.headers.set("Authorization", "Bearer \(token)")
        if !body.isEmpty { request.headers.set("Content-Type", "application/json") }
        let response: HTTPResponse
        do {
            response = try await SDKHTTP.client().send(request, to: server + path, timeout: .seconds(15))
        } catch {
            throw ParleyError(.registration, reason: "cannot reach \(server): \(error)")
        }
        guard (200..<300).contains(response.status) else {
            let json = (try? JSONValue.parse(response.body))?.objectValue
            var code = 31301
            if case .integer(let number)? = json?["code"] { code = Int(number) }
            throw ParleyError(ParleyError.Code(rawValue: code), reason: json?["message"]?.stringValue ?? "HTTP \(response.status)")
        }
        return response
    }
}

/// One HTTP client for the SDK's REST calls (registrations, Insights, feedback), made on first use.
enum SDKHTTP {
    private static let shared = Mutex<HTTPClient?>(nil)

    static func client() throws -> HTTPClient {
        try shared.withLock { client in
            if let client { return client }
            let made = try HTTPClient(configuration: HTTPClient.Configuration(threads: 1))
            client = made
            return made
        }
    }
}

extension Data {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
