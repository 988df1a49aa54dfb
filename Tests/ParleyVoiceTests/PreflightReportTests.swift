import CallQuality
import Foundation
import ICE
import Testing
@testable import ParleyVoice

/// The preflight report's arithmetic, without a network: the rating thresholds, min/average/max,
/// network timings from the connection's timestamps, and warnings raised and cleared by the samples.
@Suite struct PreflightReportTests {
    @Test(arguments: [(4.43, PreflightCallQuality.excellent), (4.2, .excellent), (4.19, .great), (4.1, .great),
                      (4.0, .good), (3.7, .good), (3.69, .fair), (3.1, .fair), (3.09, .degraded), (1.0, .degraded)])
    func averageMOSRatesLikeTwilio(mos: Double, expected: PreflightCallQuality) {
        #expect(PreflightCallQuality(averageMOS: mos) == expected)
    }

    @Test func reportAggregatesTheSamples() {
        let samples = [
            Self.sample(jitter: 2, rtt: nil, mos: nil, loss: 0),
            Self.sample(jitter: 4, rtt: 10, mos: 4.4, loss: 0),
            Self.sample(jitter: 6, rtt: 30, mos: 4.0, loss: 3),
        ]
        let local = ICECandidate(foundation: "1", priority: 1, address: ICETransportAddress("127.0.0.1", port: 5000)!, type: .host)
        let remote = ICECandidate(foundation: "2", priority: 1, address: ICETransportAddress("10.0.0.9", port: 3478)!, type: .relay)
        let report = PreflightReport(callSid: "PF1", edge: "test", networkTiming: PreflightNetworkTiming(),
                                     selectedIceCandidatePair: PreflightCandidatePair(local: local, remote: remote),
                                     statsSamples: samples, qualityWarnings: [])
        #expect(report.jitter == PreflightStats(min: 2, average: 4, max: 6))
        #expect(report.rtt == PreflightStats(min: 10, average: 20, max: 30))
        #expect(report.packetLoss == PreflightStats(min: 0, average: 1, max: 3))
        #expect(report.mos?.average == 4.2)
        #expect(report.callQuality == .excellent)
        #expect(report.isTurnRequired)
        #expect(report.selectedIceCandidatePair?.localCandidate.ip == "127.0.0.1")
        #expect(report.selectedIceCandidatePair?.remoteCandidate.port == 3478)
        #expect(report.selectedIceCandidatePair?.remoteCandidate.candidateType == "relay")

        let empty = PreflightReport(callSid: "PF2", edge: "test", networkTiming: PreflightNetworkTiming(),
                                    selectedIceCandidatePair: nil, statsSamples: [], qualityWarnings: [])
        #expect(empty.mos == nil && empty.callQuality == nil && empty.jitter == nil && !empty.isTurnRequired)
    }

    @Test func networkTimingSpansTheConnectionSteps() {
        let timing = PreflightNetworkTiming(signalingStarted: .milliseconds(1), localDescription: .milliseconds(3),
                                            remoteDescription: .milliseconds(10), iceConnected: .milliseconds(14),
                                            dtlsConnected: .milliseconds(30), connected: .milliseconds(31))
        #expect(timing == PreflightNetworkTiming(signaling: .milliseconds(7), ice: .milliseconds(4), dtls: .milliseconds(16),
                                                 peerConnection: .milliseconds(30)))
        let unfinished = PreflightNetworkTiming(signalingStarted: .milliseconds(1), localDescription: .milliseconds(3),
                                                remoteDescription: .milliseconds(10), iceConnected: nil, dtlsConnected: nil,
                                                connected: nil)
        #expect(unfinished == PreflightNetworkTiming(signaling: .milliseconds(7)))
    }

    /// Three seconds at 500 ms RTT raise high-rtt and low-mos (3 of the last 5, Twilio's rule); five
    /// good seconds later (and ≥ 5 s after raising) both clear.
    @Test func warningsAreRecordedWhenRaisedAndCleared() {
        var measurements = PreflightMeasurements()
        var changes: [QualityWarningChange] = []
        for second in 1...10 {
            let rtt = second <= 3 ? 500.0 : 20.0
            let levels = AudioLevelSummary(levels: second.isMultiple(of: 2) ? [0.1, 0.2] : [0.5, 0.6])
            let quality = CallQualitySample(
                time: Int64(second) * 1_000_000, rttMilliseconds: rtt,
                local: StreamSample(packets: 50, audioLevel: levels),
                remote: StreamSample(packets: 50, jitterMilliseconds: 5, audioLevel: levels))
            let counters = PreflightMeasurements.Counters(packetsSent: 50 * second, packetsReceived: 50 * second)
            let (sample, change) = measurements.add(quality, counters: counters, codec: "opus",
                                                    at: Date(timeIntervalSince1970: Double(second)))
            #expect(sample.packetsSent == 50 * second)
            #expect(sample.roundTripTimeMs == rtt)
            if let change { changes.append(change) }
        }
        #expect(changes.map(\.raised) == [[.highRtt, .lowMos], []])
        #expect(changes.map(\.cleared) == [[], [.highRtt, .lowMos]])
        #expect(measurements.warnings == [
            PreflightWarningRecord(warning: .highRtt, raisedAt: Date(timeIntervalSince1970: 3), clearedAt: Date(timeIntervalSince1970: 8)),
            PreflightWarningRecord(warning: .lowMos, raisedAt: Date(timeIntervalSince1970: 3), clearedAt: Date(timeIntervalSince1970: 8)),
        ])
        #expect(measurements.samples.count == 10)
        #expect(measurements.samples[0].audioInputLevel == 0.55)
    }

    private static func sample(jitter: Double, rtt: Double?, mos: Double?, loss: Double) -> PreflightStatsSample {
        PreflightStatsSample(timestamp: Date(), codec: "opus", jitterMs: jitter, roundTripTimeMs: rtt, mos: mos, packetsSent: 50,
                             packetsReceived: 50, packetsLost: 0, packetLossPercent: loss, bytesSent: 4000,
                             bytesReceived: 4000, audioInputLevel: 0.2, audioOutputLevel: 0.2)
    }
}
