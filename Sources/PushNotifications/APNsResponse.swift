import JSONWire

/// How APNs answers map to `PushError` (Apple's "Handling notification responses from APNs").
enum APNsResponse {
    /// The `reason` member of an APNs error body, or the status text when there is none.
    static func reason(status: Int, body: [UInt8]) -> String {
        let object = (try? JSONValue.parse(body, maxDepth: 4))?.objectValue
        return object?["reason"]?.stringValue ?? "HTTP \(status)"
    }

    /// Nil for success (200); otherwise the error to report.
    static func error(status: Int, body: [UInt8]) -> PushError? {
        guard status != 200 else { return nil }
        let reason = reason(status: status, body: body)
        switch status {
        case 410:
            return .unregistered(reason: reason)
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic":
            return .badDeviceToken(reason: reason)
        case 403:
            return .authentication(reason: reason)
        case 429, 500...599:
            return .temporary(status: status, reason: reason)
        default:
            return .rejected(status: status, reason: reason)
        }
    }
}
