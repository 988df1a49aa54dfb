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
/// scored with PESQ-WB.
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
                run.base, try run.token("speaker"), try run.token("listener"), run.path("source.wav"), run.path("received.wav"),
            ])
            #expect(result["deletes"] as? [Int] == [200, 200], "\(result)")
            let reference = try SpeechMaterial.resample(speech, from: 48_000, to: 16_000)
            let degraded = try SpeechMaterial.load(run.path("received.wav"), rate: 16_000)
            let score = try #require(try SpeechMaterial.pesq([(reference, degraded)], packageRoot: Python.packageRoot).first)
            print("PESQ-WB through WHIP → room → WHEP: \(score) (\(speech.count / 48) ms sent, \(degraded.count / 16) ms recorded)")
            #expect(score >= 4.0)  // 4.5 measured: nothing on the path decodes or re-encodes
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
    /// A speaker publishes a 48 kHz WAV over WHIP; a listener (over WHEP before it) records what
    /// it decodes into another WAV; both DELETE.
    static let speech = helpers + #"""
import wave

class Speech(Tone):
    def __init__(self, samples):
        super().__init__()
        self.speech = samples
    def samples(self, start, count):
        chunk = self.speech[start:start + count]
        return np.concatenate([chunk, np.zeros(count - len(chunk), dtype=np.int16)])

async def main(base, speaker_token, listener_token, source, received):
    posts, result = {}, {}
    with wave.open(source, "rb") as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    try:
        listener = peer()
        listener.addTransceiver("audio", direction="recvonly")
        chunks, frames = [], []
        record(listener, chunks, frames)
        heard = await post(listener, base + "/v1/rooms/stage/whep", listener_token, posts, "listener")
        speaker = peer()
        speaker.addTransceiver(Speech(samples), direction="sendonly")
        said = await post(speaker, base + "/v1/rooms/stage/whip", speaker_token, posts, "speaker")
        await asyncio.sleep(len(samples) / RATE + 1.5)
        deletes = []
        for at, token in [(heard, listener_token), (said, speaker_token)]:
            status, _, _ = await asyncio.to_thread(http, "DELETE", base + at, None, {"Authorization": "Bearer " + token})
            deletes.append(status)
        result["deletes"], result["frames"] = deletes, len(frames)
        for pc in (listener, speaker):
            await pc.close()
        pcm = np.concatenate(chunks).astype(np.int16) if chunks else np.zeros(0, dtype=np.int16)
        with wave.open(received, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(RATE)
            w.writeframes(pcm.tobytes())
    except Exception as e:
        result["error"] = repr(e)
    result["posts"] = posts
    print(json.dumps({"result": result}), flush=True)

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]))
"""#
}
