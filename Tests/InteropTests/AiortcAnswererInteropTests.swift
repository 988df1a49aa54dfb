import Foundation
import ParleyTestSupport
import Testing
import WebRTC

/// aiortc answers an offer made by our `PeerConnection` (we are the controlling ICE agent and,
/// since aiortc answers `a=setup:active`, the DTLS server). Opus flows both ways for 5.5 s: a
/// 440 Hz tone from us, 660 Hz from aiortc; each side checks what it heard.
///
/// Needs the project venv (`.venv` with aiortc and numpy); without it the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct AiortcAnswererInteropTests {
    @Test(.timeLimit(.minutes(1))) func aiortcAnswersOurOffer() async throws {
        let pc = try PeerConnection()
        let offer = try await pc.createOffer()
        let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-answerer-\(UUID().uuidString).py")
        try AiortcAnswererScript.source.write(to: dir, atomically: true, encoding: .utf8)
        let child = try ChildProcess(executable: python, arguments: [dir.path, "6.5"], stdin: offer)
        defer { child.kill() }

        guard let answerLine = await child.waitForJSON(key: "answer", timeout: .seconds(20)),
              let answer = answerLine["answer"] as? String else {
            Issue.record("aiortc printed no answer\nstdout:\n\(child.stdout)\nstderr:\n\(child.stderr.suffix(4000))")
            await pc.close()
            return
        }
        try await pc.setRemoteAnswer(answer)
        let connected = await pc.waitUntilConnected(timeout: .seconds(10))
        let atConnect = await pc.statistics()
        #expect(connected, "not connected: \(atConnect.state) ICE \(atConnect.iceState) \(atConnect.failure.map { "\($0)" } ?? "")")
        guard connected else {
            await pc.close()
            Issue.record("stderr:\n\(child.stderr.suffix(4000))")
            return
        }
        print("PeerConnection → aiortc answerer: offer → connected \(atConnect.timings.offerToConnected.map { "\($0)" } ?? "-"), "
              + "timings \(atConnect.timings)")

        let collector = ClientInterop.collect(pc)
        try await ClientInterop.sendTone(pc, frequency: 440, seconds: 5.5)
        try await Task.sleep(for: .milliseconds(300))
        let stats = await pc.statistics()
        let exited = await child.wait(timeout: .seconds(10))
        await pc.close()
        let frames = await collector.value
        print("PeerConnection ↔ aiortc stats: sent \(stats.packetsSent), received \(stats.packetsReceived), RTT "
              + "\(stats.roundTripTime.map { "\($0)" } ?? "-"), jitter \(stats.jitter) s, lost \(stats.cumulativeLost), "
              + "codec \(stats.codec.map { "\($0)" } ?? "-") PT \(stats.payloadType ?? 0)")
        #expect(exited, "aiortc did not finish in time")
        guard let result = child.jsonLines.last(where: { $0["frames"] != nil }) else {
            Issue.record("aiortc printed no result\nstdout:\n\(child.stdout)\nstderr:\n\(child.stderr.suffix(4000))")
            return
        }
        print("aiortc answerer result: \(result)")
        #expect(stats.codec == .opus && stats.payloadType == 111)
        #expect(frames.count >= 200, "only \(frames.count) frames from aiortc")
        let dominant = try ClientInterop.dominantFrequency(ofOpus: frames)
        #expect(abs(dominant - 660) <= 15, "aiortc's tone decoded at \(dominant) Hz")
        let heard = result["dominant_hz"] as? Double ?? 0
        #expect(abs(heard - 440) <= 15, "aiortc heard \(heard) Hz from us")
        #expect((result["frames"] as? Int ?? 0) >= 200, "aiortc received \(result["frames"] ?? 0) frames")
    }
}

/// The aiortc side: reads our offer on stdin, answers with a 660 Hz tone track, prints
/// `{"answer": sdp}`, records what we send for the given seconds and prints one result line.
enum AiortcAnswererScript {
    static let source = AiortcScriptPrelude.source(frequency: 660) + #"""

async def main(seconds):
    offer = sys.stdin.read()
    res = {"states": []}
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    chunks, frames = [], []
    connected = watch(pc, res, time.perf_counter())
    record(pc, chunks, frames)

    await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
    pc.addTrack(Tone())
    await pc.setLocalDescription(await pc.createAnswer())
    print(json.dumps({"answer": pc.localDescription.sdp}), flush=True)
    try:
        await asyncio.wait_for(connected.wait(), 10)
        res["connected"] = True
    except asyncio.TimeoutError:
        res["connected"] = False
    if res["connected"]:
        await asyncio.sleep(seconds)
    res["frames"] = len(frames)
    x = np.concatenate(chunks).astype(np.float64) if chunks else np.zeros(0)
    x = x[RATE // 2: RATE // 2 + 2 * RATE]
    if len(x) >= RATE // 2:
        x -= x.mean()
        spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
        res["dominant_hz"] = float(np.fft.rfftfreq(len(x), 1 / RATE)[int(np.argmax(spectrum))])
        res["rms"] = float(np.sqrt(np.mean(x * x)))
    print(json.dumps(res), flush=True)
    await pc.close()

asyncio.run(main(float(sys.argv[1])))
"""#
}
