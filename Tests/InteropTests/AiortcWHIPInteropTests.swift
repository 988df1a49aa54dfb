import AccessToken
import Foundation
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// WHIP and WHEP into a room on a real `parley-server` (in process, its own WebRTC socket), with
/// aiortc and plain HTTP (urllib): a first viewer POSTs a recvonly audio + video offer to
/// `/v1/rooms/stage/whep` while the room is empty, then a publisher POSTs an Opus tone and
/// aiortc's 640x480 VP8 test video to `/whip`, then a second viewer asks for the publisher by
/// identity (`?participant=cam`). Both viewers must decode the tone and the video (the first
/// gets them when they are published); the Rooms REST API (Basic auth) lists the three
/// participants; DELETE of each resource disconnects it. Then speech through the same path,
/// scored with PESQ-WB, mixed (the default) and forwarded; and two publishers' tones, which the
/// default viewer hears mixed.
///
/// Needs the project venv (aiortc); without it the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct AiortcWHIPInteropTests {
    /// An in-process server and a scratch directory for one script.
    struct Run {
        let server: PlatformServer
        let dir: URL

        func token(_ identity: String) throws -> String {
            try InProcessPlatform.token(server, identity: identity, grants: [.video(VideoGrant(room: "stage"))])
        }

        var base: String { "http://127.0.0.1:\(server.port)" }
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

        /// Runs `source` with the venv's python and `arguments`; returns its `result` object.
        func script(_ source: String, _ arguments: [String]) async throws -> [String: Any] {
            let script = dir.appendingPathComponent("whip.py")
            try source.write(to: script, atomically: true, encoding: .utf8)
            let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
            let child = try ChildProcess(executable: python, arguments: [script.path] + arguments)
            defer { child.kill() }
            let exited = await child.wait(timeout: .seconds(45))
            let diagnostics = "stdout:\n\(child.stdout.suffix(3000))\nstderr:\n\(child.stderr.suffix(4000))"
            #expect(exited, "the script did not finish\n\(diagnostics)")
            return try #require(child.jsonLines.last { $0["result"] != nil }?["result"] as? [String: Any],
                                "no result\n\(diagnostics)")
        }
    }

    /// Runs `body` with a started server and a scratch directory, both gone after, also on failure.
    private func withRun(_ body: (Run) async throws -> Void) async throws {
        let run = Run(server: try InProcessPlatform.start(identity: "unused").server,
                      dir: FileManager.default.temporaryDirectory.appendingPathComponent("parley-aiortc-whip-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: run.dir) }
        do {
            try FileManager.default.createDirectory(at: run.dir, withIntermediateDirectories: true)
            try await body(run)
        } catch {
            await run.server.shutdown()
            throw error
        }
        await run.server.shutdown()
    }

    @Test(.timeLimit(.minutes(1))) func aiortcPublishesOverWHIPAndViewersReceiveOverWHEP() async throws {
        try await withRun { run in
            let creds = run.server.defaultCredentials
            let result = try await run.script(AiortcWHIPScript.source, [
                run.base, try run.token("cam"), try run.token("viewer"), try run.token("fan"),
                creds.account.sid, creds.account.authToken, "4",
            ])
            print("aiortc WHIP → WHEP: \(result)")
            let posts = result["posts"] as? [String: [String: Any]] ?? [:]
            for name in ["cam", "viewer", "fan"] {
                let post = posts[name] ?? [:]
                let kind = name == "cam" ? "whip" : "whep"
                #expect(post["status"] as? Int == 201 && post["type"] as? String == "application/sdp", "\(name): \(post)")
                #expect((post["location"] as? String)?.hasPrefix("/v1/rooms/stage/\(kind)/PA") == true, "\(name): \(post)")
            }
            for name in ["viewer", "fan"] {
                let got = result[name] as? [String: Any] ?? [:]
                #expect(got["audio_frames"] as? Int ?? 0 > 100, "\(name) decoded \(got["audio_frames"] ?? 0) audio frames")
                #expect(got["audio_peak"] as? Double ?? 0 > 0.1, "\(name) heard no tone")
                #expect(got["video_frames"] as? Int ?? 0 > 30, "\(name) decoded \(got["video_frames"] ?? 0) video frames")
                #expect(got["video_size"] as? [Int] == [640, 480], "\(name): \(got)")
            }
            #expect(Set(result["listed"] as? [String] ?? []) == ["cam", "viewer", "fan"], "REST listed \(result["listed"] ?? [])")
            #expect(result["deletes"] as? [Int] == [200, 200, 200, 404])
            #expect((result["connected_after"] as? [String])?.isEmpty == true, "still connected: \(result["connected_after"] ?? [])")
            #expect(Set(result["statuses_after"] as? [String] ?? []) == ["disconnected"])
        }
    }

    /// PESQ-WB of espeak-ng speech (two sentences, a male and a female voice) that aiortc
    /// publishes over WHIP and a viewer records over WHEP: the room forwards Opus untouched, so
    /// the score is the codec's and the path's.
    @Test(.timeLimit(.minutes(1))) func speechThroughWHIPAndWHEPKeepsItsPESQ() async throws {
        try await withRun { run in
            let text = SpeechMaterial.sentences.split(separator: ".").prefix(2).joined(separator: ".") + "."
            try SpeechMaterial.speak(text, to: run.path("spoken.wav"))
            // Half a second of silence either side, at the rate aiortc sends.
            let pad = [Int16](repeating: 0, count: 24_000)
            let speech = pad + (try SpeechMaterial.load(run.path("spoken.wav"), rate: 48_000)) + pad
            try SpeechMaterial.save(speech, rate: 48_000, to: run.path("source.wav"))
            let result = try await run.script(AiortcWHIPScript.speech, [
                run.base, try run.token("speaker"), try run.token("listener"), try run.token("second"), run.path("source.wav"),
                run.path("mixed.wav"), run.path("forwarded.wav"),
            ])
            #expect(result["deletes"] as? [Int] == [200, 200, 200], "\(result)")
            let reference = try SpeechMaterial.resample(speech, from: 48_000, to: 16_000)
            let mixed = try SpeechMaterial.load(run.path("mixed.wav"), rate: 16_000)
            let forwarded = try SpeechMaterial.load(run.path("forwarded.wav"), rate: 16_000)
            let scores = try SpeechMaterial.pesq([(reference, mixed), (reference, forwarded)], packageRoot: Python.packageRoot)
            try #require(scores.count == 2)
            print("PESQ-WB through WHIP → room → WHEP: mixed \(scores[0]), forwarded \(scores[1]) "
                  + "(\(speech.count / 48) ms sent, \(mixed.count / 16) / \(forwarded.count / 16) ms recorded)")
            #expect(scores[1] >= 4.0)  // 4.5 measured: nothing on the forwarded path decodes or re-encodes
            #expect(scores[0] >= 3.8)  // 4.03 measured: the mix decodes and encodes once more (Opus 64 kbit/s)
        }
    }

    /// Two publishers' tones over WHIP: the default WHEP viewer hears the room's mix (both), one
    /// that asks for a participant hears only that participant's.
    @Test(.timeLimit(.minutes(1))) func theDefaultWHEPViewerHearsTheRoomsMix() async throws {
        try await withRun { run in
            let result = try await run.script(AiortcWHIPScript.mix, [
                run.base, try run.token("low"), try run.token("high"), try run.token("viewer"), try run.token("fan"), "3",
            ])
            print("aiortc WHEP mix: \(result)")
            let mixed = result["mixed"] as? [String: Double] ?? [:]
            let lowOnly = result["low_only"] as? [String: Double] ?? [:]
            #expect(mixed["440"] ?? 0 > 100 && mixed["1000"] ?? 0 > 100, "the mix has both tones: \(result)")
            // Forwarded untouched: 1 kHz is the 440 Hz tone's codec noise, a thousandth of it at most.
            #expect(lowOnly["440"] ?? 0 > 100 && lowOnly["1000"] ?? 0 < (lowOnly["440"] ?? 0) / 1_000,
                    "?participant=low has only low's: \(result)")
        }
    }
}

enum AiortcWHIPScript {
    /// Plain-HTTP WHIP/WHEP helpers: `http`, `peer` (max-bundle), `post` (offer → answer).
    static let helpers = AiortcScriptPrelude.source(frequency: 440) + #"""
import base64, urllib.request, urllib.error
from aiortc import VideoStreamTrack, RTCBundlePolicy

def http(method, url, body=None, headers=None):
    data = body.encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()

def peer():
    # max-bundle: aiortc 1.16 otherwise gives a second section its own transport (see the room test).
    return RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))

async def post(pc, url, token, posts, name):
    await pc.setLocalDescription(await pc.createOffer())
    status, headers, body = await asyncio.to_thread(http, "POST", url, pc.localDescription.sdp,
                                                    {"Content-Type": "application/sdp", "Authorization": "Bearer " + token})
    posts[name] = {"status": status, "type": headers.get("Content-Type"), "location": headers.get("Location")}
    if status != 201:
        posts[name]["body"] = body
        raise RuntimeError("%s: POST %s answered %d %s" % (name, url, status, body))
    await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
    return headers.get("Location")

"""#

    static let source = helpers + #"""
async def viewer(base, token, query, posts, name, t0):
    pc = peer()
    pc.addTransceiver("audio", direction="recvonly")
    pc.addTransceiver("video", direction="recvonly")
    got = {}
    tally(pc, got, t0)
    location = await post(pc, base + "/v1/rooms/stage/whep" + query, token, posts, name)
    return pc, got, location

async def main(base, cam_token, viewer_token, fan_token, account, auth_token, seconds):
    t0 = time.perf_counter()
    posts, result = {}, {}
    basic = {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (account, auth_token)).encode()).decode()}
    def rest(path):
        status, _, body = http("GET", base + path, headers=basic)
        return json.loads(body) if status == 200 else {"status": status, "body": body}
    try:
        # The first viewer comes to an empty room: it gets the tracks once they are published.
        view_pc, view_got, view_at = await viewer(base, viewer_token, "", posts, "viewer", t0)
        cam = peer()
        cam.addTransceiver(Tone(), direction="sendonly")
        cam.addTransceiver(VideoStreamTrack(), direction="sendonly")
        cam_at = await post(cam, base + "/v1/rooms/stage/whip", cam_token, posts, "cam")
        fan_pc, fan_got, fan_at = await viewer(base, fan_token, "?participant=cam", posts, "fan", t0)
        await asyncio.sleep(seconds)
        rooms = (await asyncio.to_thread(rest, "/v1/Rooms?UniqueName=stage")).get("rooms", [])
        sid = rooms[0]["sid"] if rooms else "none"
        listed = await asyncio.to_thread(rest, "/v1/Rooms/%s/Participants?Status=connected" % sid)
        result["listed"] = [p["identity"] for p in listed.get("participants", [])]
        result["viewer"], result["fan"] = view_got, fan_got
        deletes = []
        for at, token in [(fan_at, fan_token), (view_at, viewer_token), (cam_at, cam_token), (cam_at, cam_token)]:
            status, _, _ = await asyncio.to_thread(http, "DELETE", base + at, None, {"Authorization": "Bearer " + token})
            deletes.append(status)
        result["deletes"] = deletes
        after = await asyncio.to_thread(rest, "/v1/Rooms/%s/Participants?Status=connected" % sid)
        result["connected_after"] = [p["identity"] for p in after.get("participants", [])]
        every = await asyncio.to_thread(rest, "/v1/Rooms/%s/Participants" % sid)
        result["statuses_after"] = [p["status"] for p in every.get("participants", [])]
        for pc in (view_pc, fan_pc, cam):
            await pc.close()
    except Exception as e:
        result["error"] = repr(e)
    result["posts"] = posts
    print(json.dumps({"result": result}), flush=True)

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], float(sys.argv[7])))
"""#
}

extension AiortcWHIPScript {
    /// A speaker publishes a 48 kHz WAV over WHIP; two listeners (over WHEP before it: the
    /// room's mix, and the speaker's track by identity) record what they decode into WAVs; all DELETE.
    static let speech = helpers + #"""
import wave

class Speech(Tone):
    def __init__(self, samples):
        super().__init__()
        self.speech = samples
    def samples(self, start, count):
        chunk = self.speech[start:start + count]
        return np.concatenate([chunk, np.zeros(count - len(chunk), dtype=np.int16)])

def save(path, chunks):
    pcm = np.concatenate(chunks).astype(np.int16) if chunks else np.zeros(0, dtype=np.int16)
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())

async def main(base, speaker_token, listener_token, second_token, source, mixed, forwarded):
    posts, result = {}, {}
    with wave.open(source, "rb") as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    try:
        # One listener takes the room's default (its mixed audio), one the speaker's own track.
        listeners, heard = [], []
        for query, name, token in [("", "mixed", listener_token), ("?participant=speaker", "forwarded", second_token)]:
            pc = peer()
            pc.addTransceiver("audio", direction="recvonly")
            chunks, frames = [], []
            record(pc, chunks, frames)
            heard.append(await post(pc, base + "/v1/rooms/stage/whep" + query, token, posts, name))
            listeners.append((pc, chunks, frames))
        speaker = peer()
        speaker.addTransceiver(Speech(samples), direction="sendonly")
        said = await post(speaker, base + "/v1/rooms/stage/whip", speaker_token, posts, "speaker")
        await asyncio.sleep(len(samples) / RATE + 1.5)
        deletes = []
        for at, token in [(heard[0], listener_token), (heard[1], second_token), (said, speaker_token)]:
            status, _, _ = await asyncio.to_thread(http, "DELETE", base + at, None, {"Authorization": "Bearer " + token})
            deletes.append(status)
        result["deletes"], result["frames"] = deletes, [len(f) for _, _, f in listeners]
        for pc in [l[0] for l in listeners] + [speaker]:
            await pc.close()
        save(mixed, listeners[0][1])
        save(forwarded, listeners[1][1])
    except Exception as e:
        result["error"] = repr(e)
    result["posts"] = posts
    print(json.dumps({"result": result}), flush=True)

asyncio.run(main(*sys.argv[1:8]))
"""#

    /// Two speakers publish tones (440 Hz, 1 kHz) over WHIP; a default WHEP viewer and one that
    /// asks for `low` by identity report how strong each tone is in what they decode (the
    /// magnitude of the spectrum at each frequency over its median).
    static let mix = helpers + #"""
class Pitch(Tone):
    def __init__(self, hz):
        super().__init__()
        self.hz = hz
    def samples(self, start, count):
        t = (np.arange(count) + start) / RATE
        return (0.25 * 32767 * np.sin(2 * np.pi * self.hz * t)).astype(np.int16)

def strengths(chunks):
    if not chunks:
        return {"440": 0.0, "1000": 0.0}
    pcm = np.concatenate(chunks).astype(np.float64)[RATE:]  # after the first second
    spectrum = np.abs(np.fft.rfft(pcm))
    hz = np.fft.rfftfreq(len(pcm), 1 / RATE)
    floor = float(np.median(spectrum)) or 1.0
    def at(f):
        band = (hz > f - 5) & (hz < f + 5)
        return round(float(spectrum[band].max()) / floor, 1) if band.any() else 0.0
    return {"440": at(440), "1000": at(1000)}

async def main(base, low_token, high_token, viewer_token, fan_token, seconds):
    posts, result = {}, {}
    try:
        pcs, got = [], {}
        for hz, token, name in [(440, low_token, "low"), (1000, high_token, "high")]:
            pc = peer()
            pc.addTransceiver(Pitch(hz), direction="sendonly")
            await post(pc, base + "/v1/rooms/stage/whip", token, posts, name)
            pcs.append(pc)
        for query, name, token in [("", "mixed", viewer_token), ("?participant=low", "low_only", fan_token)]:
            pc = peer()
            pc.addTransceiver("audio", direction="recvonly")
            got[name] = []
            record(pc, got[name], [])
            await post(pc, base + "/v1/rooms/stage/whep" + query, token, posts, name)
            pcs.append(pc)
        await asyncio.sleep(seconds)
        for name in got:
            result[name] = strengths(got[name])
        for pc in pcs:
            await pc.close()
    except Exception as e:
        result["error"] = repr(e)
    result["posts"] = posts
    print(json.dumps({"result": result}), flush=True)

asyncio.run(main(*sys.argv[1:6], float(sys.argv[6])))
"""#
}
