import Foundation
import HTTPWire
import ParleyClientCore
import ParleyCore
import Testing

/// The client core without a server: which server an edge means, each SDK's settings apart,
/// the server's error bodies as `ParleyError`s, the Insights switch and bound, the default
/// delegate queue.
@Suite struct ClientCoreTests {
    static let noServerURL = ProcessInfo.processInfo.environment["PARLEY_SERVER_URL"].map(\.isEmpty) ?? true

    @Test(.enabled(if: noServerURL, "PARLEY_SERVER_URL is set"))
    func anEdgeNamesAServerAndRoamingTakesTheOnlyOne() throws {
        let settings = ClientSettings(entryPoint: "Test")
        #expect(settings.edge == ClientSettings.defaultEdge)
        #expect(throws: ParleyError.self) { try settings.server() }
        settings.servers = ["home": "http://127.0.0.1:1"]
        #expect(try settings.server() == "http://127.0.0.1:1")  // roaming: the only one
        settings.servers["work"] = "http://127.0.0.1:2"
        settings.edge = "work"
        #expect(try settings.server() == "http://127.0.0.1:2")
        #expect(try settings.server(for: "home") == "http://127.0.0.1:1")
        let unknown = #expect(throws: ParleyError.self) { try settings.server(for: "elsewhere") }
        #expect(unknown?.code == .connection)
        #expect(unknown?.failureReason?.contains("set Test.servers or PARLEY_SERVER_URL") == true)

        // Each SDK's settings are its own.
        let other = ClientSettings(entryPoint: "Other")
        other.isInsightsEnabled = false
        #expect(other.servers.isEmpty && settings.isInsightsEnabled)
    }

    @Test func refusalsBecomeParleyErrors() {
        func refusal(_ status: Int, _ body: String) -> ParleyError {
            ClientHTTP.error(from: HTTPResponse(status: status, body: Array(body.utf8)), fallback: .registration)
        }
        let apiError = refusal(403, #"{"code":31403,"message":"Forbidden","more_info":"","status":403}"#)
        #expect(apiError.code.rawValue == 31403 && apiError.failureReason == "Forbidden")
        let sdkError = refusal(404, #"{"code":31404,"reason":"no such call","message":"Not Found"}"#)
        #expect(sdkError.code == .notFound && sdkError.failureReason == "no such call")
        let bare = refusal(503, "<html>busy</html>")
        #expect(bare.code == .registration && bare.failureReason == "HTTP 503")
        let oversized = refusal(400, #"{"code":1e400}"#)  // not a JSON number Parley reads: the fallback
        #expect(oversized.code == .registration)
    }

    @Test func insightsOffOrWithoutAServerQueueNothingAndTheQueueIsBounded() {
        let settings = ClientSettings(entryPoint: "Test")
        settings.servers = ["home": "http://127.0.0.1:1"]
        settings.isInsightsEnabled = false
        let off = InsightsPublisher(settings: settings, flushInterval: .seconds(60), batchSize: 100, capacity: 2)
        off.publish(group: "connection", name: "listen", level: .info, payload: [:], token: "t")
        #expect(off.counters == .init())

        settings.isInsightsEnabled = true
        let bounded = InsightsPublisher(settings: settings, flushInterval: .seconds(60), batchSize: 100, capacity: 2)
        for name in ["a", "b", "c", "d"] {
            bounded.publish(group: "connection", name: name, level: .info, subject: ["call_sid": "CA1"], payload: [:],
                            token: "t")
        }
        #expect(bounded.counters == .init(posted: 0, dropped: 2, failed: 0))
    }

    @Test func callbacksHaveAQueueThatRunsWithoutTheMainQueue() async {
        #if canImport(Darwin)
        #expect(DelegateQueue.default === DispatchQueue.main)
        #else
        #expect(DelegateQueue.default !== DispatchQueue.main)
        #expect(DelegateQueue.default.label == "com.parley.sdk.delegate")
        // Nothing here runs the main queue; the SDK's queue runs anyway.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DelegateQueue.default.async { done.resume() }
        }
        #endif
    }
}
