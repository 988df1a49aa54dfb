import Testing
@testable import PushNotifications

@Suite struct PushNotificationsPlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
