import Foundation
import ParleyTestSupport
import Testing

/// Chromium (libwebrtc, the browser's WebRTC) offers its fake microphone to `POST /v1/echo` of a real
/// `parley-server` process from a page on another origin (so CORS is exercised), connects over
/// ICE-lite + DTLS-SRTP, and must receive audio back: `getStats()` inbound-rtp shows packets and a
/// non-zero audio level. Then the page DELETEs the session. Once with RED (RFC 2198) preferred,
/// so Chromium sends RED and the echo sends it back, once with RED removed.
///
/// Everything runs in a private network + PID namespace with only `lo` (see `ChromiumRun`).
/// Needs root, `chromium`, `iproute2`, `util-linux` and `python3` (scripts/install-deps); without
/// them the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct ChromiumEchoInteropTests {
    @Test(.timeLimit(.minutes(1)), arguments: [true, false]) func chromiumConnectsAndHearsItsEcho(red: Bool) async throws {
        let started = ContinuousClock.now
        let run = try ChromiumRun.echo(statsMilliseconds: 4000, red: red)
        defer { run.cleanUp() }
        let ended = await run.wait(timeout: .seconds(52))
        #expect(ended, "the Chromium run did not finish within 52 s; it was killed")
        let report = try run.report()
        let r = report["result"] as? [String: Any] ?? [:]

        let interfaces = report["interfaces"] as? [String] ?? []
        print("chromium echo: namespace interfaces \(interfaces), \(report["server_line"] ?? "-")")
        print("chromium echo: chromium exit \(report["chromium_exit"] ?? "-") after \(report["chromium_s"] ?? "-") s, "
              + "whole test \(ContinuousClock.now - started)")
        var shown = r
        shown["answer_sdp"] = nil
        print("chromium echo result: \(shown)")
        print("offer → connected (Chromium, POST to connectionState connected): \(r["offer_to_connected_ms"] ?? "-") ms; "
              + "createOffer → connected \(r["create_offer_to_connected_ms"] ?? "-") ms; states \(r["states"] ?? "-"), "
              + "ICE \(r["ice_states"] ?? "-")")

        let diagnostics = "error: \(report["error"] ?? r["error"] ?? "-")\nanswer:\n\(r["answer_sdp"] ?? "-")\n"
            + "page result: \(report["posted_result"].map { "\($0)" } ?? "-")\n"
            + "DOM tail: \(report["dom_tail"] ?? "-")\n"
            + "server stderr: \(report["server_stderr"] ?? "-")\nchromium stderr: \(report["chromium_stderr"] ?? "-")"

        // The safety net itself: only loopback in the namespace, only loopback candidates offered.
        #expect(interfaces == ["lo"], "namespace interfaces: \(interfaces)")
        let candidates = r["offer_candidates"] as? [String] ?? []
        #expect(candidates.allSatisfy { $0.contains(" 127.0.0.1 ") }, "non-loopback candidates: \(candidates)")

        #expect(report["result"] != nil, "no result in Chromium's DOM\n\(diagnostics)")
        #expect(r["post_status"] as? Int == 201, "POST /v1/echo: \(r["post_status"] ?? "-")\n\(diagnostics)")
        #expect(r["connection_state"] as? String == "connected", "not connected\n\(diagnostics)")
        let inbound = r["inbound"] as? [String: Any] ?? [:]
        let packets = inbound["packetsReceived"] as? Int ?? 0
        #expect(packets > 100, "only \(packets) inbound audio packets\n\(diagnostics)")
        let energy = ChromiumRun.number(inbound["totalAudioEnergy"])
        let maxLevel = ChromiumRun.number(r["max_audio_level"])
        #expect(energy > 0, "inbound totalAudioEnergy \(energy)")
        #expect(maxLevel > 0, "inbound audioLevel never above 0")
        #expect(r["delete_status"] as? Int == 200, "DELETE: \(r["delete_status"] ?? "-")")
        // RED is in the answer exactly when Chromium offered it, and then Chromium sends RED.
        let answer = r["answer_sdp"] as? String ?? ""
        #expect(answer.contains("a=rtpmap:63 red/48000/2") == red, "answer:\n\(answer)")
        let metrics = report["metrics"] as? [String: Double] ?? [:]
        let redReceived = metrics["parley_media_red_received_total"] ?? -1
        print("chromium echo (red \(red)): the server received \(redReceived) RED packets, "
              + "wrapped \(metrics["parley_media_red_wrapped_total"] ?? -1); Chromium's stats name \(r["outbound_codec"] ?? "-")")
        #expect(red ? redReceived > 100 : redReceived == 0, "RED packets at the server: \(redReceived) (\(report["metrics_error"] ?? ""))")
    }

    /// The fake camera too: the echo answers audio and video on one bundled transport, and
    /// Chromium decodes its own video coming back on the server's video track.
    @Test(.timeLimit(.minutes(1))) func chromiumGetsItsVideoEchoed() async throws {
        let run = try ChromiumRun.echo(statsMilliseconds: 4000, video: true)
        defer { run.cleanUp() }
        let ended = await run.wait(timeout: .seconds(52))
        #expect(ended, "the Chromium run did not finish within 52 s; it was killed")
        let report = try run.report()
        let r = report["result"] as? [String: Any] ?? [:]
        let diagnostics = "error: \(report["error"] ?? r["error"] ?? "-")\nanswer:\n\(r["answer_sdp"] ?? "-")\n"
            + "server stderr: \(report["server_stderr"] ?? "-")"
        print("chromium video echo: codec \(r["codec"] ?? "-"), video \(r["video_codec"] ?? "-"), "
              + "inbound video \(r["inbound_video"].map { "\($0)" } ?? "-"), outbound video \(r["outbound_video"].map { "\($0)" } ?? "-")")
        #expect(r["connection_state"] as? String == "connected", "not connected\n\(diagnostics)")
        let answer = r["answer_sdp"] as? String ?? ""
        #expect(answer.contains("a=group:BUNDLE 0 1"), "answer:\n\(answer)")
        #expect(answer.contains("m=video ") && !answer.contains("m=video 0 "), "video rejected:\n\(answer)")
        let audio = r["inbound"] as? [String: Any] ?? [:]
        #expect((audio["packetsReceived"] as? Int ?? 0) > 100, "audio: \(audio)\n\(diagnostics)")
        let video = r["inbound_video"] as? [String: Any] ?? [:]
        #expect((video["packetsReceived"] as? Int ?? 0) > 50, "video: \(video)\n\(diagnostics)")
        #expect((video["framesDecoded"] as? Int ?? 0) > 10, "video frames decoded: \(video)")
        #expect(r["delete_status"] as? Int == 200, "DELETE: \(r["delete_status"] ?? "-")")
    }
}
