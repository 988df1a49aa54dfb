import ParleyCore
import ParleyCrypto
import ParleyStore
import PushNotifications
import Signaling

/// The engine's `InviteNotifier` on top of the configured push providers (`apns`, `webhook`):
/// each binding goes to the provider it was registered with.
struct PushNotifier: InviteNotifier {
    let providers: [String: any PushProvider]

    func notify(_ notice: IncomingCallNotice, binding: PushBinding) async -> PushOutcome {
        guard let provider = providers[binding.provider] else {
            return .failed("no \(binding.provider) push provider is configured")
        }
        let notification = VoicePushNotification(
            messageType: notice.kind == .invite ? .call : .cancel, callSid: notice.callSid,
            accountSid: notice.accountSid, from: notice.from, to: notice.to, messageID: SecureRandom.hex(byteCount: 16),
            bridgeToken: notice.kind == .invite ? notice.bridgeToken : nil,
            customParameters: notice.parameters.map { (name: $0.0, value: $0.1) })
        do {
            try await provider.send(notification, deviceToken: binding.deviceToken)
            return .delivered
        } catch {
            return error.invalidatesBinding ? .unregistered : .failed(error.description)
        }
    }
}
