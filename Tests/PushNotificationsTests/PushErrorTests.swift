import PushNotifications
import Testing

@Suite struct PushErrorTests {
    @Test func errorsSayWhatToDo() {
        #expect(PushError.unregistered(reason: "Unregistered").invalidatesBinding)
        #expect(PushError.badDeviceToken(reason: "BadDeviceToken").invalidatesBinding)
        #expect(!PushError.authentication(reason: "InvalidProviderToken").invalidatesBinding)
        #expect(PushError.temporary(status: 503, reason: "ServiceUnavailable").isRetryable)
        #expect(!PushError.rejected(status: 400, reason: "BadTopic").isRetryable)
    }
}
