import JSONWire
import ParleyCore
import ParleyStore

/// The JSON of the Insights endpoints: a batch the SDK posts, feedback, and an event as the read
/// endpoints show it. Pure (no store, no clock): `InsightsEndpoint` passes the caller and the time.
package enum InsightsWire {
    /// At most this many events per `POST /v1/insights`.
    static let maxEventsPerBatch = 100
    /// At most this many body bytes per request (413 beyond).
    static let maxBodyBytes = 64 * 1024
    static let levels: Set<String> = ["info", "warning", "error"]
    /// The seed's feedback issues (the SDK's `CallFeedbackIssue` raw values).
    static let feedbackIssues: [String] = ["dropped-call", "audio-latency", "one-way-audio", "choppy-audio",
                                           "noisy-call", "echo"]
    /// Timestamps up to the end of year 9999, in milliseconds.
    static let maxTimestamp: Int64 = 253_402_300_799_999

    /// Who posted and when: stamped on every stored event.
    package struct Origin {
        let accountSid: String
        let identity: String
        /// Milliseconds since the epoch.
        let nowMilliseconds: Int64

        package init(accountSid: String, identity: String, nowMilliseconds: Int64) {
            self.accountSid = accountSid
            self.identity = identity
            self.nowMilliseconds = nowMilliseconds
        }
        var now: Int64 { nowMilliseconds / 1000 }
    }

    /// `{"events": [{"group", "name", "level", "timestamp", "call_sid"?, "payload"?}, …]}` →
    /// events, or the first problem as a 31400 whose reason names the field.
    package static func decodeBatch(_ body: [UInt8], origin: Origin) throws(ParleyError) -> [InsightsEvent] {
        guard let root = try? JSONValue.parse(body).objectValue, case .array(let items)? = root["events"] else {
            throw bad("send {\"events\": [ … ]}")
        }
        guard (1...maxEventsPerBatch).contains(items.count) else {
            throw bad("events must hold 1 to \(maxEventsPerBatch) events, got \(items.count)")
        }
        var events: [InsightsEvent] = []
        events.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            events.append(try decodeEvent(item, at: "events[\(index)]", origin: origin))
        }
        return events
    }

    private static func decodeEvent(_ item: JSONValue, at path: String, origin: Origin) throws(ParleyError) -> InsightsEvent {
        guard let object = item.objectValue else { throw bad("\(path) must be an object") }
        guard let group = object["group"]?.stringValue, isName(group) else {
            throw bad("\(path).group must be 1-64 characters of A-Z a-z 0-9 . _ -")
        }
        guard let name = object["name"]?.stringValue, isName(name) else {
            throw bad("\(path).name must be 1-64 characters of A-Z a-z 0-9 . _ -")
        }
        guard let level = object["level"]?.stringValue, levels.contains(level) else {
            throw bad("\(path).level must be info, warning or error")
        }
        guard case .integer(let timestamp)? = object["timestamp"], (1...maxTimestamp).contains(timestamp) else {
            throw bad("\(path).timestamp must be milliseconds since the epoch")
        }
        let callSid = try self.callSid(object["call_sid"], at: "\(path).call_sid", required: false)
        var payload = JSONValue.object([:])
        switch object["payload"] {
        case nil, .null?: break
        case .object(let members)?: payload = .object(members)
        default: throw bad("\(path).payload must be an object")
        }
        return InsightsEvent(accountSid: origin.accountSid, identity: origin.identity, callSid: callSid, group: group,
                             name: name, level: level, timestamp: timestamp,
                             payload: String(decoding: payload.serialized(), as: UTF8.self), receivedAt: origin.now)
    }

    /// `{"call_sid": "CA…", "score": 1-5 (optional), "issues": ["dropped-call", …]}` → the
    /// `feedback`/`received` event. A score or at least one issue is needed.
    package static func decodeFeedback(_ body: [UInt8], origin: Origin) throws(ParleyError) -> InsightsEvent {
        guard let object = try? JSONValue.parse(body).objectValue else {
            throw bad("send {\"call_sid\": \"CA…\", \"score\": 1-5, \"issues\": [ … ]}")
        }
        let callSid = try self.callSid(object["call_sid"], at: "call_sid", required: true)
        var score: Int64?
        switch object["score"] {
        case nil, .null?: break
        case .integer(let n)? where (1...5).contains(n): score = n
        default: throw bad("score must be an integer from 1 to 5")
        }
        var issues: [String] = []
        switch object["issues"] {
        case nil, .null?: break
        case .array(let values)?:
            for value in values {
                guard let issue = value.stringValue, feedbackIssues.contains(issue) else {
                    throw bad("issues may hold only \(feedbackIssues.joined(separator: ", "))")
                }
                if !issues.contains(issue) { issues.append(issue) }
            }
        default: throw bad("issues must be an array")
        }
        guard score != nil || !issues.isEmpty else { throw bad("feedback needs a score or at least one issue") }
        let payload: JSONObject = ["score": score.map(JSONValue.integer) ?? .null, "issues": .array(issues.map(JSONValue.string))]
        return InsightsEvent(accountSid: origin.accountSid, identity: origin.identity, callSid: callSid,
                             group: "feedback", name: "received", level: "info", timestamp: origin.nowMilliseconds,
                             payload: String(decoding: JSONValue.object(payload).serialized(), as: UTF8.self),
                             receivedAt: origin.now)
    }

    /// An event as `GET /v1/insights` and the REST `Insights.json` list show it.
    package static func json(_ event: InsightsEvent) -> JSONValue {
        let payload = (try? JSONValue.parse(Array(event.payload.utf8))) ?? .object([:])
        return .object([
            "account_sid": .string(event.accountSid),
            "call_sid": event.callSid.map(JSONValue.string) ?? .null,
            "identity": .string(event.identity),
            "group": .string(event.group),
            "name": .string(event.name),
            "level": .string(event.level),
            "timestamp": .integer(event.timestamp),
            "payload": payload,
            "received_at": .integer(event.receivedAt),
        ])
    }

    private static func callSid(_ value: JSONValue?, at path: String, required: Bool) throws(ParleyError) -> String? {
        switch value {
        case nil, .null?:
            if required { throw bad("\(path) is required") }
            return nil
        case .string(let sid)? where SID.isValid(sid, prefix: "CA"): return sid
        default: throw bad("\(path) must be a call SID (CA followed by 32 hex digits)")
        }
    }

    /// 1-64 bytes of `A-Z a-z 0-9 . _ -`: the seed's group and event names.
    static func isName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    private static func bad(_ reason: String) -> ParleyError { ParleyError(.badRequest, reason: reason) }
}
