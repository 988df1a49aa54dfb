import CallQuality
import Foundation
import ParleyCore
import Synchronization
import Testing
@testable import ParleyVoice

/// `Voice.runPreflightTest` against the in-process server's echo service: a short test's report,
/// stopping early, a refused token, an unreachable server, and the delegate queue.
extension VoiceSDKTests {
@Suite struct PreflightTests {
    @Test func threeSecondPreflightReportsAGoodLoopbackPath() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let events = PreflightEvents()
        let test = Voice.runPreflightTest(options: PreflightOptions(accessToken: try bed.token("alice")) {
            $0.duration = .seconds(3)
            $0.delegateQueue = events.queue
        }, delegate: events)
        #expect(test.state == .connecting)
        #expect(test.callSid.hasPrefix("PF") && test.callSid.count == 34)
        try await events.wait(for: "completed") { $0.contains(.completed) }
        #expect(test.state == .completed)
        let report = try #require(events.report)
        #expect(report.callSid == test.callSid)
        #expect(report.edge == "test")

        let mos = try #require(report.mos), jitter = try #require(report.jitter), rtt = try #require(report.rtt)
        let loss = try #require(report.packetLoss)
        #expect(mos.average > 4, "MOS \(mos)")
        #expect(loss.max == 0)
        #expect(jitter.max < 20, "jitter \(jitter) ms")
        #expect(rtt.min > 0 && rtt.max < 50, "RTT \(rtt) ms")
        #expect(report.callQuality == .excellent || report.callQuality == .great)
        #expect(report.statsSamples.count >= 2 && report.statsSamples.count <= 3)
        let last = try #require(report.statsSamples.last)
        #expect(last.codec == "opus")
        #expect(last.packetsSent > 100 && last.packetsReceived > 100)
        #expect(last.packetsLost == 0)
        #expect(last.audioInputLevel > 0.05 && last.audioOutputLevel > 0.01)

        let pair = try #require(report.selectedIceCandidatePair)
        #expect(pair.localCandidate.candidateType == "host" && pair.remoteCandidate.candidateType == "host")
        #expect(pair.localCandidate.ip == "127.0.0.1" && pair.remoteCandidate.port > 0)
        #expect(!report.isTurnRequired)
        let timing = report.networkTiming
        for step in [timing.signaling, timing.ice, timing.dtls, timing.peerConnection] {
            #expect((step ?? .zero) > .zero)
        }
        #expect(report.qualityWarnings.isEmpty)

        // Every callback on the chosen queue, connect first, one stats sample per report sample.
        #expect(events.offQueueCalls == 0)
        #expect(events.events.first == .connected)
        #expect(events.events.filter { $0 == .sample }.count == report.statsSamples.count)
        print("preflight: MOS \(mos), jitter \(jitter) ms, RTT \(rtt) ms, timing \(timing), quality \(report.callQuality.map(\.rawValue) ?? "-")")
    }

    @Test func stopEndsTheTestEarlyWithTheSamplesSoFar() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let events = PreflightEvents()
        let started = ContinuousClock.now
        let test = Voice.runPreflightTest(options: PreflightOptions(accessToken: try bed.token("alice")) {
            $0.delegateQueue = events.queue  // the default 10 s
        }, delegate: events)
        try await events.wait(for: "a sample") { $0.contains(.sample) }
        test.stop()
        try await events.wait(for: "completed", timeout: .seconds(3)) { $0.contains(.completed) }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(test.state == .completed)
        let report = try await test.report()
        #expect(report.statsSamples.count >= 1 && report.statsSamples.count < 4)
        test.stop()  // a no-op once ended
        #expect(events.events.filter { $0 == .completed }.count == 1)

        // Before media connects, stopping fails the test as cancelled.
        let early = PreflightEvents()
        let stopped = Voice.runPreflightTest(options: PreflightOptions(accessToken: try bed.token("alice")) {
            $0.delegateQueue = early.queue
        }, delegate: early)
        stopped.stop()
        try await early.wait(for: "failed") { $0.contains(.failed(31008)) }
        #expect(stopped.state == .failed)
        #expect(early.offQueueCalls == 0)
    }

    @Test func refusedTokenFailsWith20101() async throws {
        let bed = try VoiceTestBed()
        defer { Task { await bed.stop() } }
        let events = PreflightEvents()
        let test = Voice.runPreflightTest(options: PreflightOptions(accessToken: "not.a.jwt") {
            $0.delegateQueue = events.queue
        }, delegate: events)
        try await events.wait(for: "failed") { $0.contains { if case .failed = $0 { true } else { false } } }
        #expect(events.events == [.failed(20101)])
        #expect(test.state == .failed)
        #expect(events.offQueueCalls == 0)

        let thrown = await #expect(throws: ParleyError.self) {
            _ = try await Voice.runPreflightTest(options: PreflightOptions(accessToken: "not.a.jwt"))
        }
        #expect(thrown?.code == .accessTokenInvalid)
    }

    @Test func unreachableServerFailsWith31005() async throws {
        Voice.servers["nowhere"] = "http://127.0.0.1:9"  // the discard port: nothing listens
        defer { Voice.servers["nowhere"] = nil }
        do {
            _ = try await Voice.runPreflightTest(options: PreflightOptions(accessToken: "token") { $0.edge = "nowhere" })
            Issue.record("the preflight test succeeded without a server")
        } catch {
            #expect(error.code == .connection)
        }
    }
}
}

/// Records a preflight test's callbacks, and whether each ran on `queue`.
final class PreflightEvents: PreflightDelegate, Sendable {
    enum Event: Equatable {
        case connected, sample, completed
        case failed(Int)
        case warnings(Set<QualityWarning>)
    }

    let queue = DispatchQueue(label: "preflight-test-delegates")
    private static let key = DispatchSpecificKey<String>()
    private let state = Mutex<(events: [Event], report: PreflightReport?, offQueue: Int)>(([], nil, 0))

    init() { queue.setSpecific(key: Self.key, value: queue.label) }

    var events: [Event] { state.withLock { $0.events } }
    var report: PreflightReport? { state.withLock { $0.report } }
    var offQueueCalls: Int { state.withLock { $0.offQueue } }

    func preflightDidConnect(_ preflightTest: PreflightTest) { record(.connected) }
    func preflight(_ preflightTest: PreflightTest, didReceiveStatsSample statsSample: PreflightStatsSample) { record(.sample) }
    func preflight(_ preflightTest: PreflightTest, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>,
                   previousWarnings: Set<QualityWarning>) { record(.warnings(currentWarnings)) }
    func preflight(_ preflightTest: PreflightTest, didFailWithError error: ParleyError) { record(.failed(error.code.rawValue)) }
    func preflight(_ preflightTest: PreflightTest, didCompleteWith report: PreflightReport) {
        state.withLock { $0.report = report }
        record(.completed)
    }

    private func record(_ event: Event) {
        let onQueue = DispatchQueue.getSpecific(key: Self.key) == queue.label
        state.withLock {
            $0.events.append(event)
            if !onQueue { $0.offQueue += 1 }
        }
    }

    func wait(for what: String, timeout: Duration = .seconds(10), _ predicate: ([Event]) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !predicate(events) {
            guard ContinuousClock.now < deadline else {
                throw TestTimeout(description: "no \(what) within \(timeout); events: \(events)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
