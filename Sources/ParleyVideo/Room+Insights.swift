import ParleyClientCore
import ParleyCore

/// The room's Insights events (group `room`, `POST /v1/insights` through the client core's
/// publisher, as the voice SDK's): `connected`, `connect-failed`, `reconnecting`, `reconnected`
/// and `disconnected`, with the room's and our participant's SIDs and any error code. Sent only
/// when both `ConnectOptions.isInsightsEnabled` and `Video.isInsightsEnabled` are on.
extension Room {
    func publishInsight(_ name: String, level: InsightsLevel = .info, error: ParleyError? = nil) {
        guard options.isInsightsEnabled else { return }
        var payload: [String: String] = ["room_name": name == "connect-failed" ? options.roomName ?? "" : self.name]
        if let sid { payload["room_sid"] = sid }
        if let participant = localParticipant?.sid { payload["participant_sid"] = participant }
        if let error { payload["error_code"] = String(error.code.rawValue) }
        Video.insights.publish(group: "room", name: name, level: error == nil ? level : .error, payload: payload,
                               token: options.token, edge: options.edge)
    }
}
