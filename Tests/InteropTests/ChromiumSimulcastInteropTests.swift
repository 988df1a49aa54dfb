import Foundation
import ParleyTestSupport
import Testing

/// Simulcast through the SFU, end to end: Chromium (libwebrtc) publishes its fake camera at 960×540
/// in three VP8 layers from the room page (`#simulcast=1`); bob, an aiortc subscriber, receives it
/// through `parley netsim`, whose rate limit starts at `limitAt` and lifts at `liftAt`. The SFU
/// must forward bob the full layer before the limit, a smaller one under it (moved down on his
/// loss reports and falling receiver estimate: REMB, from our abs-send-time), and the full layer
/// again after the limit lifts (probed back up a step at a time); bob's key frames tell, as they
/// arrive, which layer he was sent, and his decoder must have decoded frames at each size. The
/// server counts the layer switches and answers bob's NACKs from the publisher's packet cache, on
/// the RTX stream (RFC 4588) aiortc negotiated.
///
/// aiortc's video jitter buffer waits for every packet in turn: a packet lost twice (and its
/// retransmission too, in the relay's full queue) stalls its decoder until 512 newer packets
/// came, so decoded sizes lag; the key frames are read before that buffer.
///
/// Everything runs in a private network + PID namespace with only `lo` (`ChromiumRun`); needs root,
/// Chromium, and the project venv (aiortc).
@Suite(.serialized, .tags(.interop)) struct ChromiumSimulcastInteropTests {
    static let (limitAt, liftAt, endAt, kbps) = (10.0, 22.0, 44.0, 300)

    @Test(.timeLimit(.minutes(2))) func aSubscriberBehindALimitIsMovedDownALayerAndBackUp() async throws {
        let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
        let run = try ChromiumRun(orchestrator: ChromiumScripts.browser + ChromiumScripts.simulcast,
                                  files: ["bob.py": ChromiumScripts.simulcastSubscriber],
                                  arguments: [python, String(Self.limitAt), String(Self.liftAt), String(Self.endAt), String(Self.kbps)])
        defer { run.cleanUp() }
        let ended = await run.wait(timeout: .seconds(100))
        #expect(ended, "the simulcast run did not finish within 100 s; it was killed")
        let report = try run.report()
        let bob = report["bob"] as? [String: Any] ?? [:]
        let samples = report["samples"] as? [[String: Any]] ?? []
        let diagnostics = "error: \(report["error"] ?? "-")\nbob stderr: \(report["bob_stderr"] ?? "-")\n"
            + "alice: \(report["alice_state"] ?? "-")\nnetsim: \(report["netsim"] ?? "-")\nserver: \(report["server_stderr"] ?? "-")"
        #expect(report["error"] == nil && report["alice_joined"] as? String == "joined", "\(diagnostics)")

        // What bob decoded, and when (seconds since the relay started).
        let changes = (bob["changes"] as? [[Any]] ?? []).map { (ChromiumRun.number($0[0]), $0[1] as? Int ?? 0) }
        print("simulcast: bob's picture widths over time \(changes), frames by size \(bob["sizes"] ?? "-"), "
              + "switched \(bob["switched"] ?? "-")")
        for sample in samples {
            let layers = (sample["alice_layers"] as? [[String: Any]] ?? []).map { "\($0["rid"] ?? "?") \($0["frameWidth"] ?? "-")" }
            print("simulcast: t \(sample["t"] ?? "-") s, alice sends \(layers), server \(sample["metrics"] ?? "-")")
        }
        print("simulcast: netsim \(report["netsim"] ?? "-")")
        print("simulcast: bob per second [t, packets, lost, frames] \(report["bob_samples"] ?? "-")")
        if ProcessInfo.processInfo.environment["PARLEY_CHROMIUM_SERVER_LOG"] != nil { print("simulcast: server log\n\(report["server_log"] ?? "-")") }
        #expect((bob["frames"] as? Int ?? 0) > 300, "bob decoded \(bob["frames"] ?? 0) frames\n\(diagnostics)")
        #expect((bob["errors"] as? [Any] ?? []).isEmpty, "bob's errors: \(bob["errors"] ?? "-")")
        // Alice sent three layers, the largest at her camera's size.
        let widths = Set(samples.flatMap { ($0["alice_layers"] as? [[String: Any]] ?? []).compactMap { $0["frameWidth"] as? Int } })
        #expect(widths.isSuperset(of: [240, 480, 960]), "alice's layer widths \(widths)")
        // What the SFU forwarded bob, layer by layer (the server's counters, sampled each second): the
        // full layer (f, offered third) before the limit, less of it under the limit (a probe up
        // holds until loss or a falling estimate shows; 0–57 % in runs here), and the full layer
        // again once the limit lifted.
        func share(of layer: Int, from start: Double, to end: Double) -> Double {
            let window = samples.filter { ChromiumRun.number($0["t"]) >= start && ChromiumRun.number($0["t"]) <= end }
            guard let first = window.first?["metrics"] as? [String: Any], let last = window.last?["metrics"] as? [String: Any] else { return -1 }
            let counts = (0..<3).map { ChromiumRun.number(last["parley_media_simulcast_layer\($0)_packets_total"])
                - ChromiumRun.number(first["parley_media_simulcast_layer\($0)_packets_total"]) }
            let total = counts.reduce(0, +)
            return total > 0 ? counts[layer] / total : -1
        }
        let before = share(of: 2, from: 3, to: Self.limitAt)
        let under = share(of: 2, from: Self.limitAt + 4, to: Self.liftAt)
        let after = share(of: 2, from: Self.endAt - 6, to: Self.endAt)
        print("simulcast: share of bob's video from the full layer: before the limit \(before), under it \(under), after it \(after)")
        #expect(before > 0.8, "before the limit, \(Int(before * 100)) % from the full layer")
        #expect(under >= 0 && under < 0.7, "under the limit, \(Int(under * 100)) % from the full layer")
        #expect(after > 0.8 && after > under + 0.2, "after the limit lifted, \(Int(after * 100)) % from the full layer")
        // Bob saw it too, as key frames of each size arrived (before aiortc's jitter buffer).
        let keyframes = (bob["keyframes"] as? [[Any]] ?? []).map { (ChromiumRun.number($0[0]), $0[1] as? Int ?? 0) }
        print("simulcast: key frame widths bob received over time \(keyframes)")
        // The layer switch times, as `SDKSimulcastInteropTests` reads them: the limit → the first
        // smaller key frame; the lift → the first full-size key frame after the last smaller one.
        let down = keyframes.first { $0.0 >= Self.limitAt && $0.0 < Self.liftAt && $0.1 < 960 }
        let lastSmaller = keyframes.lastIndex { $0.1 < 960 } ?? keyframes.count
        let up = keyframes.dropFirst(lastSmaller).first { $0.1 == 960 }
        print("simulcast: layer switch times: down \(down.map { String(format: "%.2f", $0.0 - Self.limitAt) } ?? "-") s after the limit, "
              + "up \(up.map { String(format: "%.2f", $0.0 - Self.liftAt) } ?? "-") s after the lift")
        #expect(keyframes.contains { $0.0 < Self.limitAt && $0.1 == 960 }, "no 960-wide key frame before the limit: \(keyframes)")
        #expect(keyframes.contains { $0.0 >= Self.limitAt && $0.0 < Self.liftAt && $0.1 < 960 },
                "not moved down under the limit: \(keyframes)")
        #expect(keyframes.contains { $0.0 > Self.liftAt && $0.1 == 960 }, "not back at full size after the limit lifted: \(keyframes)")
        // And it decoded what it got at each size (aiortc's decoder: libvpx).
        let sizes = bob["sizes"] as? [String: Int] ?? [:]
        #expect((sizes["960x540"] ?? 0) > 100 && sizes.keys.contains { $0 != "960x540" }, "decoded sizes \(sizes)")
        // The server's side: layer switches (down and up), and retransmissions on bob's NACKs.
        let last = samples.last?["metrics"] as? [String: Any] ?? [:]
        #expect(ChromiumRun.number(last["parley_media_layer_switches_total"]) >= 2, "metrics \(last)")
        #expect(ChromiumRun.number(last["parley_media_retransmissions_total"]) > 0, "no NACK answered: \(last)")
        // aiortc offered rtx: the retransmissions came on the slot's RTX stream (RFC 4588).
        print("simulcast: bob got \(bob["rtx_packets"] ?? "-") RTX packets; server \(last)")
        #expect((bob["rtx_packets"] as? Int ?? 0) > 0, "no RTX packet reached bob")
    }
}
