import Foundation

/// Loss and delay lines of `parley-bench sip-calls`.
enum SIPCallsBenchReport {
    /// Forwarded: what the peer leg sent that this leg never received (tagged packets). Transcoded:
    /// tags do not survive decoding, so the frames the relay sent short of what the peer sent.
    static func loss(_ final: [Int: CallsBenchReport.LegCounts], transcoded: Bool, wall: Double, window: CallsBenchReport.Window,
                     udpBefore: [String: Int], udpAfter: [String: Int], failures: Int) {
        var sent = [0, 0], lost = [0, 0], worst = 0.0
        for (leg, counts) in final {
            let peerSent = final[leg ^ 1]?.sent ?? 0
            let got = transcoded ? counts.played : counts.received
            let missing = max(0, peerSent - got)
            // Direction 0: SIP phone → WebRTC leg (received by the even leg); 1: WebRTC → SIP.
            sent[leg & 1] += peerSent
            lost[leg & 1] += missing
            if peerSent > 0 { worst = max(worst, Double(missing) / Double(peerSent)) }
        }
        func pct(_ d: Int) -> String { String(format: "%.4f %%", 100 * Double(lost[d]) / Double(max(sent[d], 1))) }
        let what = transcoded ? "frames the relay sent short of the peer's" : "loss"
        print("\(what): SIP → WebRTC \(pct(0)) (\(lost[0]) of \(sent[0])), WebRTC → SIP \(pct(1)) (\(lost[1]) of \(sent[1])); "
              + String(format: "worst leg %.3f %%; legs failed: %d", worst * 100, failures))
        let rcvbuf = (udpAfter["RcvbufErrors"] ?? 0) - (udpBefore["RcvbufErrors"] ?? 0)
        let all = Array(final.values)
        print("  kernel UDP RcvbufErrors +\(rcvbuf) (whole machine); clients: send ring full \(all.reduce(0) { $0 + $1.sendDropped }), "
              + "untagged frames \(all.reduce(0) { $0 + $1.played }); "
              + String(format: "client loops %.0f %% of a core, pacer max lag %.1f ms, %d sends > 5 ms late",
                       window.clientCPU / wall * 100, Double(window.maxLagNanos) / 1e6, window.lateSends))
        let d = window.delays
        guard d.count > 0 else { return print("one-way delay: not measured (tags do not survive transcoding)") }
        print(String(format: "one-way delay client → server → client: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                     d.quantileMillis(0.5), d.quantileMillis(0.99), Double(d.maxNanos) / 1e6))
    }
}
