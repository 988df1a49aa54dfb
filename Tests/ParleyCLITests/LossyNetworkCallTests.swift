import Foundation
import ParleyTestSupport
import Testing

/// A real call under real loss: `parley demo` (parley-server, alice and bob with the SDK) in a
/// network namespace whose loopback drops 5 % of UDP datagrams on input, so each hop — alice →
/// server, server → bob — loses 5 % (about 10 % end to end). RED (RFC 2198), negotiated by the SDK
/// and kept across the bridge, brings the callee's recording back near PESQ-WB 3.0 (issue 15; it
/// scored 1.9–2.7 without). Runs have scored 2.93–3.54: the demo's 13.6 s of speech makes a few
/// unrecovered frames (7 of 759 in the 2.93 run) weigh more than in `parley-bench call-quality`'s
/// 60 s (3.95 at the same loss), so the test asks ≥ 2.85 and the gap is to be closed in the product.
@Suite(.serialized, .tags(.process, .realTime)) struct LossyNetworkCallTests {
    @Test(.timeLimit(.minutes(3))) func fivePercentLossOnEveryHopScoresThreeAtTheCallee() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("parley-lossy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try LossyNamespace.arguments(lossPercent: 5,
                                               command: [try CLITestBed.parley, "demo", "--out", out, "--setup-calls", "0"])
        let demo = try CLIProcess.start(run.executable, run.arguments, captureStandardError: true)
        #expect(await demo.exitStatus(timeout: .seconds(120)) == 0, "\(demo.output)")
        let score = try #require(demo.output.firstMatch(of: /PESQ-WB (\d\.\d{3}) \(bob's recording/).flatMap { Double($0.1) },
                                 "no PESQ-WB score in: \(demo.output)")
        let figures = try #require(demo.output.firstMatch(of: /bob: (\d+) packets received, (\d+) lost; recovered (\d+) frames by RED and/),
                                   "no RED figures in: \(demo.output)")
        let (received, lost, recovered) = (Int(figures.1) ?? 0, Int(figures.2) ?? 0, Int(figures.3) ?? 0)
        print("5 % loss per hop: PESQ-WB \(score), bob lost \(lost) of \(received + lost), RED recovered \(recovered)")
        if score < 2.85 { print(demo.output) }
        // The loss is real (about 10 % end to end) and RED recovered most of it.
        #expect(lost * 100 >= 4 * (received + lost), "\(lost) of \(received + lost) lost: was the loss applied?")
        #expect(recovered * 2 >= lost, "RED recovered \(recovered) of \(lost)")
        #expect(score >= 2.85)
    }
}
