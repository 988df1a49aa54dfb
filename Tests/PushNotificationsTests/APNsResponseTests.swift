import Testing
@testable import PushNotifications

/// APNs status and reason to `PushError` (Apple's "Handling notification responses from APNs").
@Suite struct APNsResponseTests {
    @Test(arguments: [
        (200, "", nil),
        (410, #"{"reason":"Unregistered","timestamp":1700000000000}"#, PushError.unregistered(reason: "Unregistered")),
        (410, #"{"reason":"ExpiredToken"}"#, .unregistered(reason: "ExpiredToken")),
        (400, #"{"reason":"BadDeviceToken"}"#, .badDeviceToken(reason: "BadDeviceToken")),
        (400, #"{"reason":"DeviceTokenNotForTopic"}"#, .badDeviceToken(reason: "DeviceTokenNotForTopic")),
        (400, #"{"reason":"BadTopic"}"#, .rejected(status: 400, reason: "BadTopic")),
        (403, #"{"reason":"ExpiredProviderToken"}"#, .authentication(reason: "ExpiredProviderToken")),
        (403, #"{"reason":"InvalidProviderToken"}"#, .authentication(reason: "InvalidProviderToken")),
        (413, #"{"reason":"PayloadTooLarge"}"#, .rejected(status: 413, reason: "PayloadTooLarge")),
        (429, #"{"reason":"TooManyRequests"}"#, .temporary(status: 429, reason: "TooManyRequests")),
        (500, "", .temporary(status: 500, reason: "HTTP 500")),
        (503, #"{"reason":"ServiceUnavailable"}"#, .temporary(status: 503, reason: "ServiceUnavailable")),
    ])
    func mapping(status: Int, body: String, error: PushError?) {
        #expect(APNsResponse.error(status: status, body: Array(body.utf8)) == error)
    }

    @Test func deviceTokens() {
        #expect(APNsProvider.normalizedDeviceToken("<ABCD ef01>") == "abcdef01")
        #expect(APNsProvider.normalizedDeviceToken("abc") == nil)
        #expect(APNsProvider.normalizedDeviceToken("zz") == nil)
        #expect(APNsProvider.normalizedDeviceToken("") == nil)
        #expect(APNsProvider.normalizedDeviceToken("../../x") == nil)
    }
}
