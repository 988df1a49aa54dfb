import Foundation
import HTTPWire
import ParleyClientCore
import ParleyNet
import Testing
@testable import ParleyVoice

/// The SDK publishes the seed's Insights events as a call happens, and the server serves them
/// per call (`GET /v1/insights?call_sid=`) and per identity.
extension VoiceSDKTests {
    @Suite struct VoiceInsightsEventsTests {
        @Test func aCallLeavesItsEventsOnTheServer() async throws {
            let bed = try VoiceTestBed()
            defer { Task { await bed.stop() } }
            Voice.isInsightsEnabled = true
            let (alice, _, listener, _, _) = try await VoiceCallControlTests.connectedPair(bed)
            try await Task.sleep(for: .milliseconds(300))
            alice.postFeedback(score: .four, issue: .echo)
            alice.disconnect()
            await listener.stop()
            try await Task.sleep(for: .milliseconds(300))
            await VoiceSettings.insights.flush()
            let sid = try #require(alice.sid)
            let callEvents = try await Self.events(bed, token: try bed.token("alice"), query: "?call_sid=\(sid)")
            #expect(callEvents.contains("connection/outgoing"), "\(callEvents)")
            #expect(callEvents.contains("settings/codec"), "\(callEvents)")
            #expect(callEvents.contains("feedback/received"), "\(callEvents)")
            let bobs = try await Self.events(bed, token: try bed.token("bob"), query: "")
            for name in ["connection/listen", "connection/listening", "connection/incoming"] {
                #expect(bobs.contains(name), "bob's events lack \(name): \(bobs)")
            }
        }

        /// `group/name` of each event the server returns.
        static func events(_ bed: VoiceTestBed, token: String, query: String) async throws -> [String] {
            var request = HTTPRequest(method: "GET")
            request.headers.set("Authorization", "Bearer \(token)")
            let response = try await HTTPClient().send(request, to: bed.baseURL + "/v1/insights" + query)
            #expect(response.status == 200)
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            let events = json?["events"] as? [[String: Any]] ?? []
            return events.compactMap { event in
                guard let group = event["group"] as? String, let name = event["name"] as? String else { return nil }
                return "\(group)/\(name)"
            }
        }
    }
}
