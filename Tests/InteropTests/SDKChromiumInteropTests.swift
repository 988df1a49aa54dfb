import AccessToken
import AudioDevices
import Foundation
import ParleyServer
import ParleyTestSupport
import Synchronization
import Testing
import VideoCore
import WebRTC

/// A ParleyVideo SDK participant and headless Chromium (libwebrtc) on the server's own room page in
/// one group room, seeing and hearing each other through the SFU of a real in-process
/// `parley-server`. The SDK participant (`sdk`) publishes a 660 Hz tone (`ToneAudioDevice`) and a
/// moving 640×360 test pattern (VP8 through libvpx); the page (alice, `GET /rooms/meet#token=…`)
/// publishes Chromium's fake microphone and camera. The SDK must decode alice's camera (> 30
/// frames, every one at the size her page reports capturing) and hear her microphone (its beeps:
/// energy); the page must decode the SDK's pattern (> 30 frames at 640×360, its inbound-rtp
/// stats), receive its audio (> 100 packets, energy > 0) and hear 660 Hz in it (WebAudio analyser).
///
/// Chromium runs in a private network + PID namespace with only `lo` (`ChromiumRun`), the server
/// and the SDK in the test process: `ChromiumScripts.sdkBridge`, run on the test's side, binds the
/// server's HTTP and media ports on the namespace's loopback and relays them (TCP per connection,
/// UDP per source, as `parley netsim` does), so no packet leaves the machine. Needs root,
/// `chromium`, `iproute2`, `util-linux` and `python3`; without them the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct SDKChromiumInteropTests {
    static let (room, sdk, frequency, width, height) = ("meet", "sdk", 660.0, 640, 360)

    @Test(.timeLimit(.minutes(2))) func anSDKParticipantAndAChromiumPageSeeAndHearEachOther() async throws {
        try await InProcessPlatform.withServer { platform in
            let server = platform.server
            let token = try InProcessPlatform.token(server, identity: "alice", grants: [.video(.init(room: Self.room))])
            let run = try ChromiumRun(orchestrator: ChromiumScripts.browser + ChromiumScripts.sdkRoom, files: [:],
                                      arguments: [String(server.port), String(server.media.localPort), Self.room, token, "40", Self.sdk])
            defer { run.cleanUp() }
            let bridge = try await Self.bridge(into: run, ports: [server.port, server.media.localPort])
            defer { bridge.kill() }

            // alice's page joins first; then the SDK participant.
            let joined = await SDKPeer.poll(timeout: .seconds(40)) { run.stdout.contains("\"event\"") || !run.process.isRunning }
            #expect(joined && run.stdout.contains(#"{"event": "joined"}"#), "alice's page did not join: \(run.stdout.suffix(3000))")
            let tone = try ToneAudioDevice(frequency: Self.frequency, levelDBFS: -12)
            let camera = PacedVideoSource(TestPattern(width: Self.width, height: Self.height, framesPerSecond: 15))
            let peer = try SDKPeer.join(edge: platform.sdkEdge, server: server, identity: Self.sdk, room: Self.room, audio: tone, video: camera)
            defer { peer.disconnect() }

            // The SDK's side: > 30 frames of alice's camera and 2 s of her microphone.
            let sdkGotMedia = await SDKPeer.poll(timeout: .seconds(40)) {
                (peer.screen("alice")?.frames ?? 0) > 30 && (peer.capture("alice")?.count ?? 0) >= 96_000
            }
            // The page's side: its orchestrator says so once it has the SDK's media (or gave up).
            let pageDone = await SDKPeer.poll(timeout: .seconds(60)) { run.stdout.contains(#"{"event": "media"}"#) || !run.process.isRunning }
            FileManager.default.createFile(atPath: run.directory.appendingPathComponent("done").path, contents: nil)
            let ended = await run.wait(timeout: .seconds(30))
            bridge.kill()
            let report = try run.report()
            SDKJoinFigures.record(peer, label: "Chromium room page")

            let pages = report["pages"] as? [String: [String: Any]] ?? [:]
            let media = pages["alice"]?["media"] as? [String: Any] ?? [:]
            let state = media["state"] as? [String: Any] ?? [:]
            let rows = (media["stats"] as? [[String: Any]] ?? []).filter { $0["identity"] as? String == Self.sdk }
            let audio = rows.first { $0["kind"] as? String == "audio" } ?? [:]
            let video = rows.first { $0["kind"] as? String == "video" } ?? [:]
            let diagnostics = "orchestrator: \(report["error"] ?? "-")\nalice console: \(pages["alice"]?["console"] ?? "-")\n"
                + "alice state: \(state)\nchromium stderr: \(ChromiumRoomInteropTests.withoutNoise(pages["alice"]?["chromium_stderr"]))\n"
                + "bridge: \(bridge.stdout.suffix(500)) \(bridge.stderr.suffix(2000))"
            #expect(ended && report["error"] == nil, "\(diagnostics)")
            #expect(report["interfaces"] as? [String] == ["lo"], "namespace interfaces: \(report["interfaces"] ?? "-")")
            #expect(pageDone && report["media_ms"] != nil, "alice's page never had the SDK's media\n\(diagnostics)")

            // The page decodes the SDK's pattern at its size, and hears its tone.
            let pitch = report["pitch"] as? [String: Any] ?? [:]
            print("SDK → Chromium: frames \(video["framesDecoded"] ?? "-") at \(video["frameWidth"] ?? "-")×\(video["frameHeight"] ?? "-"), "
                  + "audio packets \(audio["packetsReceived"] ?? "-"), energy \(audio["totalAudioEnergy"] ?? "-"), pitch \(pitch), "
                  + "media after \(report["media_ms"] ?? "-") ms of the run")
            let identities = (state["participants"] as? [String: [String: Any]] ?? [:]).values.compactMap { $0["identity"] as? String }
            #expect(identities.contains(Self.sdk), "alice does not see the SDK participant: \(identities)")
            #expect((video["framesDecoded"] as? Int ?? 0) > 30, "alice ← sdk video: \(video)")
            #expect(video["frameWidth"] as? Int == Self.width && video["frameHeight"] as? Int == Self.height, "alice ← sdk video: \(video)")
            #expect((audio["packetsReceived"] as? Int ?? 0) > 100, "alice ← sdk audio: \(audio)")
            #expect(ChromiumRun.number(audio["totalAudioEnergy"]) > 0, "alice ← sdk audio energy: \(audio)")
            #expect(abs(ChromiumRun.number(pitch["hz"]) - Self.frequency) < 10, "alice hears the SDK's tone at \(pitch)")

            // The SDK decodes alice's fake camera at the size her page captures, and hears her fake microphone.
            let seen = peer.screen("alice")?.seen.withLock { $0 }
            let capturing = state["localVideo"] as? [String: Any] ?? [:]
            let loudest = peer.loudest("alice")
            print("Chromium → SDK: frames \(seen?.frames ?? 0) by size \(seen?.sizes ?? [:]) (alice's camera \(capturing)), "
                  + "audio \(peer.capture("alice")?.count ?? 0) samples, loudest 100 ms rms \(loudest?.rms ?? 0) at \(loudest?.frequency ?? 0) Hz, "
                  + "median 100 ms rms \(loudest?.median ?? 0)")
            #expect(sdkGotMedia, "the SDK got too little of alice: failure \(String(describing: peer.times.withLock { $0.failure }))")
            #expect((seen?.frames ?? 0) > 30)
            let size = "\(capturing["width"] as? Int ?? -1)x\(capturing["height"] as? Int ?? -1)"
            #expect(seen?.sizes.keys.sorted() == [size], "the SDK decodes \(seen?.sizes ?? [:]); alice's camera is \(capturing)")
            // Chromium's fake microphone beeps every 500 ms. The page opens it with `processing=0`:
            // with noise suppression on (the default) the beeps fade within seconds, and a late
            // join heard none. The SDK must have decoded beeps well above the silence between them.
            #expect((loudest?.rms ?? 0) > 0.001 && (loudest?.rms ?? 0) > 10 * (loudest?.median ?? 1),
                    "alice's microphone is not heard at the SDK: \(String(describing: loudest))")
        }
    }

    /// Starts `sdkBridge` into `run`'s namespace (that of its orchestrator, the child of `unshare`)
    /// for `ports` (HTTP, media); returns once it has bound them there.
    static func bridge(into run: ChromiumRun, ports: [Int]) async throws -> ChildProcess {
        let unshare = run.process.processIdentifier
        var orchestrator: String?
        _ = await SDKPeer.poll(timeout: .seconds(10)) {
            let children = (try? String(contentsOfFile: "/proc/\(unshare)/task/\(unshare)/children", encoding: .utf8)) ?? ""
            orchestrator = children.split(separator: " ").first.map(String.init)
            return orchestrator != nil
        }
        let pid = try #require(orchestrator, "unshare started no orchestrator: \(run.stderr)")
        let script = run.directory.appendingPathComponent("bridge.py")
        try ChromiumScripts.sdkBridge.write(to: script, atomically: true, encoding: .utf8)
        let bridge = try ChildProcess(executable: try ChromiumRun.system(["/usr/bin/python3", "/usr/local/bin/python3"], install: "python3"),
                                      arguments: [script.path, pid] + ports.map(String.init))
        let bridged = await bridge.waitForJSON(key: "bridged", timeout: .seconds(20))
        if bridged == nil { bridge.kill() }
        try #require(bridged != nil, "the bridge did not start: \(bridge.stderr.suffix(2000))")
        return bridge
    }
}

extension SDKPeer {
    /// The loudest 100 ms of all of `identity`'s audio: its RMS (0–1) and dominant frequency (Hz),
    /// and the median RMS of all 100 ms; nil before a second came.
    func loudest(_ identity: String) -> (rms: Double, frequency: Double, median: Double)? {
        guard let samples = capture(identity)?.samples.withLock({ $0 }), samples.count >= 48_000 else { return nil }
        let windows = stride(from: 0, to: samples.count - 4_799, by: 4_800).map { samples[$0 ..< $0 + 4_800].map { Double($0) / 32_768 } }
        let rms = windows.map { w in (w.reduce(0) { $0 + $1 * $1 } / Double(w.count)).squareRoot() }
        guard let best = rms.indices.max(by: { rms[$0] < rms[$1] }) else { return nil }
        return (rms[best], ToneAudio.dominantFrequency(windows[best]), rms.sorted()[rms.count / 2])
    }
}
