import Foundation
import NetworkConditioner
import ParleyNet
import ParleyVoice

/// The table `parley-bench call-quality` prints (markdown, as docs/quality.md shows it).
enum CallQualityReport {
    /// IPv4 20 + UDP 8 + RTP 12 + SRTP tag 10 bytes around each payload (header extensions aside).
    static let wireOverheadBytes = 50.0

    static func progressLine(_ r: CallQualityResult, done: Int, of total: Int) -> String {
        let h = r.heard
        return String(format: "  [%d/%d] %@ seed %d: bob received %d, lost %d, recovered %d (RED) + %d (FEC), "
                      + "jitter buffer p95 %.0f ms%@", done, total, r.condition.name, Int(r.seed), h.packetsReceived,
                      h.packetsLost, h.framesRecoveredByRED, h.framesRecoveredByFEC, h.jitterBufferDelayP95Ms,
                      h.isREDNegotiated ? "" : ", no RED")
    }

    static func print(results: [CallQualityResult], scores: [Double], conditions: [CallQualityCondition]) {
        Swift.print("""

            | network, end to end | per hop (relay) | calls | PESQ-WB mean | PESQ-WB min | lost (bob's stats) \
            | recovered RED / FEC | concealed | JB delay p95 | alice sends (payload / wire) | RED |
            | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
            """)
        for condition in conditions {
            let rows = zip(results, scores).filter { $0.0.condition.name == condition.name }
            guard !rows.isEmpty else { continue }
            let n = Double(rows.count)
            func mean(_ value: (CallQualityResult) -> Double) -> Double { rows.map { value($0.0) }.reduce(0, +) / n }
            let pesq = rows.map(\.1)
            let lost = mean { Double($0.heard.packetsLost) }, received = mean { Double($0.heard.packetsReceived) }
            let lostPercent = 100 * lost / max(lost + received, 1)
            let p95s = rows.map(\.0.heard.jitterBufferDelayP95Ms)
            let payload = mean { $0.aliceBytesPerSecond } * 8 / 1000
            let wire = mean { $0.aliceBytesPerSecond + $0.alicePacketsPerSecond * wireOverheadBytes } * 8 / 1000
            let red = rows.allSatisfy(\.0.heard.isREDNegotiated) ? "yes" : rows.contains(where: \.0.heard.isREDNegotiated) ? "some" : "no"
            Swift.print(String(
                format: "| %@ | %@ | %d | %.2f | %.2f | %.1f %% (%.0f of %.0f) | %.0f / %.0f | %.2f s | %.0f ms (max %.0f) "
                    + "| %.0f / %.0f kbit/s | %@ |",
                condition.summary, condition.perHopSummary, rows.count, pesq.reduce(0, +) / n, pesq.min() ?? 0, lostPercent, lost,
                lost + received, mean { Double($0.heard.framesRecoveredByRED) }, mean { Double($0.heard.framesRecoveredByFEC) },
                mean { Double($0.heard.samplesConcealed) / 48_000 }, p95s.reduce(0, +) / n, p95s.max() ?? 0, payload, wire, red))
        }
        Swift.print("\nper call:")
        for (r, score) in zip(results, scores) {
            let relay = r.relay
            Swift.print(String(format: "  %@ seed %d: PESQ-WB %.3f; the relay carried %d clients, dropped %.1f %% of %d "
                               + "upstream, %.1f %% of %d downstream; alice sent %.0f packets/s; %@",
                               r.condition.name, Int(r.seed), score, relay.clientsSeen,
                               100 * Double(relay.upstream.droppedByLoss) / Double(max(relay.upstream.submitted, 1)),
                               relay.upstream.submitted,
                               100 * Double(relay.downstream.droppedByLoss) / Double(max(relay.downstream.submitted, 1)),
                               relay.downstream.submitted, r.alicePacketsPerSecond, r.recordingPath))
        }
    }
}
