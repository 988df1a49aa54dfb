import Foundation
import HTTPWire
import JSONWire
import ParleyClientCore
import ParleyCore
import ParleyNet
import ParleyServer
import ParleyStore
import Synchronization
import Testing
@testable import ParleyVoice

/// The SDK's Insights publisher and `Call.postFeedback` against an in-process server: batches
/// arrive in order and are served back per call; the size and time triggers; the queue bound;
/// nothing leaves while Insights are off; feedback is validated by the server.
extension VoiceSDKTests {
@Suite struct InsightsPublisherTests {
    static let callSid = "CA" + String(repeating: "c", count: 32)

    /// `GET /v1/insights` with `token`: the events' JSON objects.
    static func served(_ bed: VoiceTestBed, token: String, callSid: String? = nil) async throws -> [JSONObject] {
        var request = HTTPRequest(method: "GET", target: "/v1/insights" + (callSid.map { "?call_sid=\($0)" } ?? ""))
        request.headers.set("Authorization", "Bearer \(token)")
        let response = try await HTTPClient().send(request, to: bed.baseURL + request.target)
        #expect(response.status == 200)
        guard case .array(let events)? = (try? JSONValue.parse(response.body))?.objectValue?["events"] else { return [] }
        return events.compactMap { $0.objectValue }
    }

    @Test func aBatchIsPostedAndServedBackPerCall() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let token = try bed.token("alice")
        let publisher = InsightsPublisher(settings: VoiceSettings.core, flushInterval: .seconds(60), batchSize: 20)
        publisher.publish(group: "connection", name: "outgoing", level: .info, callSid: Self.callSid,
                          payload: ["to": "bob"], token: token)
        publisher.publish(group: "settings", name: "codec", level: .info, callSid: Self.callSid,
                          payload: ["codec": "opus", "packetization": "20"], token: token)
        publisher.publish(group: "registration", name: "registration-error", level: .error, callSid: nil,
                          payload: ["code": "31301"], token: token)
        #expect(publisher.counters == .init())  // nothing sent before the flush
        await publisher.flush()
        #expect(publisher.counters == .init(posted: 3, dropped: 0, failed: 0))

        let call = try await Self.served(bed, token: token, callSid: Self.callSid)
        #expect(call.map { $0["name"]?.stringValue } == ["outgoing", "codec"])
        #expect(call.map { $0["group"]?.stringValue } == ["connection", "settings"])
        #expect(call[1]["payload"] == .object(["codec": .string("opus"), "packetization": .string("20")]))
        #expect(call.allSatisfy { $0["identity"]?.stringValue == "alice" && $0["call_sid"]?.stringValue == Self.callSid })
        let mine = try await Self.served(bed, token: token)
        #expect(mine.map { $0["name"]?.stringValue } == ["outgoing", "codec", "registration-error"])
        #expect(mine.last?["level"]?.stringValue == "error" && mine.last?["call_sid"] == .null)
        #expect(try await Self.served(bed, token: try bed.token("bob")).isEmpty)
    }

    @Test func aFullBatchLeavesAtOnceAndALoneEventAfterTheInterval() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let token = try bed.token("alice")
        let bySize = InsightsPublisher(settings: VoiceSettings.core, flushInterval: .seconds(60), batchSize: 5)
        for i in 0..<5 {
            bySize.publish(group: "connection", name: "event-\(i)", level: .info, callSid: Self.callSid, payload: [:], token: token)
        }
        try await Self.waitUntil { bySize.counters.posted == 5 }

        let byTime = InsightsPublisher(settings: VoiceSettings.core, flushInterval: .milliseconds(200), batchSize: 20)
        let started = ContinuousClock.now
        byTime.publish(group: "connection", name: "listen", level: .info, callSid: nil, payload: [:], token: token)
        try await Self.waitUntil { byTime.counters.posted == 1 }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(200) && elapsed < .seconds(3))
        let served = try await Self.served(bed, token: token)
        #expect(served.map { $0["name"]?.stringValue } == ["event-0", "event-1", "event-2", "event-3", "event-4", "listen"])
    }

    @Test func eventsBeyondTheCapacityAreDroppedAndFailuresCounted() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let publisher = InsightsPublisher(settings: VoiceSettings.core, flushInterval: .seconds(60), batchSize: 100, capacity: 3)
        let token = try bed.token("alice")
        for i in 0..<5 {
            publisher.publish(group: "connection", name: "e\(i)", level: .warning, callSid: nil, payload: [:], token: token)
        }
        #expect(publisher.counters.dropped == 2)
        await publisher.flush()
        #expect(publisher.counters == .init(posted: 3, dropped: 2, failed: 0))
        // A token the server refuses: the batch fails quietly (no throw, nothing stored).
        publisher.publish(group: "connection", name: "e5", level: .info, callSid: nil, payload: [:], token: "not-a-jwt")
        await publisher.flush()
        #expect(publisher.counters == .init(posted: 3, dropped: 2, failed: 1))
        #expect(try await Self.served(bed, token: token).map { $0["name"]?.stringValue } == ["e0", "e1", "e2"])
    }

    @Test func disabledInsightsSendNothing() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        Voice.isInsightsEnabled = false
        defer { Voice.isInsightsEnabled = true }
        let token = try bed.token("alice")
        let publisher = InsightsPublisher(settings: VoiceSettings.core, flushInterval: .milliseconds(50), batchSize: 2)
        for i in 0..<4 {
            publisher.publish(group: "connection", name: "e\(i)", level: .info, callSid: nil, payload: [:], token: token)
        }
        try await Task.sleep(for: .milliseconds(200))
        await publisher.flush()
        #expect(publisher.counters == .init())
        #expect(try await Self.served(bed, token: token).isEmpty)
    }

    @Test func feedbackIsStoredWithTheCallsEventsAndUnknownCallsAreRefused() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let token = try bed.token("alice")
        let account = bed.server.defaultCredentials.account.sid
        try bed.server.store.insertCall(CallRecord(sid: Self.callSid, accountSid: account, from: "client:alice",
                                                            to: "client:bob", direction: "outbound-api",
                                                            status: .completed, startTime: 1, createdAt: 1, updatedAt: 1))
        let call = Call(uuid: UUID(), from: "client:alice", to: "bob", sid: Self.callSid, options: CallMediaOptions(),
                        delegate: nil, accessToken: token)
        // This call is never driven, so its tear-down (which releases the audio device) never runs.
        defer { VoiceSettings.shared.withLock { $0.liveCalls -= 1 } }
        try await call.submitFeedback(score: .two, issue: .choppyAudio)
        try await call.submitFeedback(score: .notReported, issue: .echo)
        let events = try await Self.served(bed, token: token, callSid: Self.callSid)
        #expect(events.map { $0["group"]?.stringValue } == ["feedback", "feedback"])
        #expect(events.map { $0["name"]?.stringValue } == ["received", "received"])
        #expect(events[0]["payload"] == .object(["score": .integer(2), "issues": .array([.string("choppy-audio")])]))
        #expect(events[1]["payload"] == .object(["score": .null, "issues": .array([.string("echo")])]))
        #expect(CallFeedbackIssue.allCases.map(\.rawValue)
                == ["dropped-call", "audio-latency", "one-way-audio", "choppy-audio", "noisy-call", "echo"])
        #expect(CallFeedbackScore.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])

        let stranger = Call(uuid: UUID(), from: nil, to: nil, sid: "CA" + String(repeating: "d", count: 32),
                            options: CallMediaOptions(), delegate: nil, accessToken: token)
        defer { VoiceSettings.shared.withLock { $0.liveCalls -= 1 } }
        let refusal = await #expect(throws: ParleyError.self) { try await stranger.submitFeedback(score: .five, issue: .echo) }
        #expect(refusal?.code == .notFound)
        // The fire-and-forget form never throws; the refusal is only logged.
        stranger.postFeedback(score: .one, issue: .droppedCall)
    }

    static func waitUntil(timeout: Duration = .seconds(5), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestTimeout(description: "condition not met in \(timeout)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
}
