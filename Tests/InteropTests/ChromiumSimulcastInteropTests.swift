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
/// server counts the layer switches and answers bob's NACKs from the publisher's packet cache.
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
        // What the SFU forwarded, seen as it arrived (each key frame's size, before aiortc's jitter
        // buffer): the full layer before the limit, a smaller one under it, the full one again after.
        let keyframes = (bob["keyframes"] as? [[Any]] ?? []).map { (ChromiumRun.number($0[0]), $0[1] as? Int ?? 0) }
        print("simulcast: key frame widths bob received over time \(keyframes)")
        func width(at time: Double) -> Int { keyframes.last { $0.0 <= time }?.1 ?? 0 }
        #expect(keyframes.contains { $0.0 < Self.limitAt && $0.1 == 960 }, "no 960-wide key frame before the limit: \(keyframes)")
        #expect(keyframes.contains { $0.0 >= Self.limitAt && $0.0 < Self.liftAt && $0.1 < 960 },
                "not moved down under the limit: \(keyframes)")
        #expect(width(at: Self.liftAt) < 960, "at full size when the limit lifted: \(keyframes)")
        #expect(keyframes.contains { $0.0 > Self.liftAt && $0.1 == 960 } && width(at: Self.endAt) == 960,
                "not back at full size after the limit lifted: \(keyframes)")
        // And it decoded what it got at each size (aiortc's decoder: libvpx).
        let sizes = bob["sizes"] as? [String: Int] ?? [:]
        #expect((sizes["960x540"] ?? 0) > 100 && sizes.keys.contains { $0 != "960x540" }, "decoded sizes \(sizes)")
        // The server's side: layer switches (down and up), and retransmissions on bob's NACKs.
        let last = samples.last?["metrics"] as? [String: Any] ?? [:]
        #expect(ChromiumRun.number(last["parley_media_layer_switches_total"]) >= 2, "metrics \(last)")
        #expect(ChromiumRun.number(last["parley_media_retransmissions_total"]) > 0, "no NACK answered: \(last)")
    }
}
