import HTTPWire
import ParleyCore
import ParleyNet
import ParleyTestClock
import PlatformCore
import Synchronization
import Testing
import TwiML

/// The status-callback queue's retries (1, 2, 4, 8, 16 s) in virtual time: a real HTTP server
/// answers 503 three times, and each retry goes out only when the virtual clock reaches it.
@Suite struct StatusCallbackRetryTests {
    @Test func aFailingCallbackIsRetriedOnItsBackoffAndDeliveredOnce() async throws {
        let attempts = Atomic<Int>(0)
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { _ in
            attempts.add(1, ordering: .relaxed).newValue <= 3 ? HTTPResponse(status: 503) : HTTPResponse(status: 204)
        }
        try server.start()
        let http = try HTTPClient()
        let clock = VirtualClock()
        let queue = StatusCallbackQueue(webhooks: WebhookClient(http: http), clock: clock)
        queue.enqueue(.init(url: "http://127.0.0.1:\(server.localPort)/status", method: .post,
                            parameters: [("CallStatus", "completed")], authToken: "secret"), key: "CA1")

        for (attempt, delay) in [(1, 1), (2, 2), (3, 4)] {
            #expect(await clock.waitForSleepers(1), "attempt \(attempt) failed and waits \(delay) s")
            #expect(attempts.load(ordering: .relaxed) == attempt)
            clock.advance(by: .seconds(delay) - .milliseconds(1))
            #expect(clock.sleeperCount == 1, "no retry before its time")
            clock.advance(by: .milliseconds(1))
        }
        for _ in 0..<5_000 where queue.statistics.delivered == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(queue.statistics.delivered == 1)
        #expect(queue.statistics.retried == 3)
        #expect(attempts.load(ordering: .relaxed) == 4)
        #expect(clock.now == .zero.advanced(by: .seconds(7)))
        http.shutdown()
        await server.shutdown()
    }
}
