import Foundation
import HTTPWire
import JSONWire
import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization

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
    /// `cancelledCallInviteReceived` on `delegateQueue` (nil: the main queue on Apple platforms,
    /// the SDK's own serial queue on Linux). Returns false when the payload is not a Parley/Twilio
    /// voice push. `delegate` is kept only until that one callback has run.
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
        let queue = delegateQueue ?? DelegateQueue.default
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
        VoiceSettings.insights.publish(group: "registration", name: name, level: error == nil ? .info : .error,
                                       callSid: nil, payload: payload, token: token)
    }

    private static func registrationRequest(_ method: String, path: String, token: String,
                                            body: [UInt8]) async throws(ParleyError) -> HTTPResponse {
        let server = try VoiceSettings.server(for: nil)
        let response = try await ClientHTTP.send(HTTPRequest(method: method, target: path, body: body), to: server,
                                                 token: token, unreachable: .registration)
        guard (200..<300).contains(response.status) else {
            throw ClientHTTP.error(from: response, fallback: .registration)
        }
        return response
    }
}

extension Data {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
