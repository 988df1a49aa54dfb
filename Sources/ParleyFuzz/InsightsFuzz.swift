import JSONWire
import ParleyStore
import VoiceREST

/// Feeds bytes to the Insights endpoints' decoders (`POST /v1/insights` batches and
/// `POST /v1/feedback`). Whatever they accept must render back (`GET /v1/insights`) to JSON that
/// parses and names the same event.
enum InsightsFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let body = Array(data)
        let origin = InsightsWire.Origin(accountSid: "AC" + String(repeating: "0", count: 32), identity: "fuzz",
                                         nowMilliseconds: 1_764_000_000_000)
        var events = (try? InsightsWire.decodeBatch(body, origin: origin)) ?? []
        if let feedback = try? InsightsWire.decodeFeedback(body, origin: origin) { events.append(feedback) }
        for event in events {
            let rendered = InsightsWire.json(event).serialized()
            guard let object = (try? JSONValue.parse(rendered))?.objectValue else {
                preconditionFailure("a stored Insights event does not render to JSON")
            }
            precondition(object["group"]?.stringValue == event.group && object["name"]?.stringValue == event.name,
                         "the rendered event names another event")
        }
    }
}
