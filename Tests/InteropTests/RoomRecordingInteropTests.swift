import AccessToken
import Foundation
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// Recordings and compositions of a group room, end to end: the `twilio` library creates a room
/// with `RecordParticipantsOnConnect`; two aiortc participants join it over room signaling and
/// publish an Opus tone and VP8 video for a few seconds (each hears `isRecording`); the library
/// completes the room, lists and fetches the four recordings, reads the recording rules, and
/// downloads each recording's media through `/Media` (the JSON `redirect_to`, then the signed URL
/// without credentials). A second room records by `RecordingRules` (audio only). Then the
/// library creates two compositions of the first room (a WebM grid of every camera with every
/// mic; an MP4 with one region showing alice), waits for them to complete, and downloads them.
/// `ffprobe` reads every file: codecs (opus, vp8; vp8 + opus; h264 + aac) and durations close to
/// the time published; every room and composition callback is signed (`RequestValidator`), and
/// the room's come in SequenceNumber order. Needs the venv and Debian's ffmpeg.
/// `PARLEY_KEEP_RECORDINGS=DIR` copies the files there to look at them.
@Suite(.serialized, .tags(.interop)) struct RoomRecordingInteropTests {
    @Test(.timeLimit(.minutes(3))) func recordingsAndACompositionAreProducedAndFFprobeReadsThem() async throws {
        let platform = try InteropPlatform(name: "room-recording")
        let server = platform.server
        platform.app.serve("/rooms", contentType: "text/plain", body: [])
        platform.app.serve("/compositions", contentType: "text/plain", body: [])
        func token(_ identity: String) throws -> String {
            try InProcessPlatform.token(server, identity: identity, grants: [.video(VideoGrant())])
        }
        let script = platform.dir.appendingPathComponent("recording.py")
        try RoomRecordingScript.source.write(to: script, atomically: true, encoding: .utf8)
        let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
        let credentials = server.defaultCredentials
        let config: [String: Any] = [
            "base": platform.base, "account": credentials.account.sid, "key": credentials.apiKey.sid,
            "secret": credentials.apiKey.secret, "callback": platform.app.baseURL + "/rooms",
            "compositions": platform.app.baseURL + "/compositions", "ws": "ws://127.0.0.1:\(server.port)/v1/signaling",
            "alice": try token("alice"), "bob": try token("bob"), "seconds": 4, "out": platform.dir.path,
        ]
        let started = ContinuousClock.now
        let child = try ChildProcess(executable: python, arguments: [
            script.path, String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self),
        ])
        defer { child.kill() }
        let exited = await child.wait(timeout: .seconds(150))
        let diagnostics = "stdout:\n\(child.stdout.suffix(3000))\nstderr:\n\(child.stderr.suffix(4000))"
        #expect(exited, "the recording script did not finish\n\(diagnostics)")
        let result = try #require(child.jsonLines.last { $0["result"] != nil }?["result"] as? [String: Any],
                                  "no result\n\(diagnostics)")
        print("room recording (\(ContinuousClock.now - started)): \(result)")

        // Participants heard the room records.
        for who in ["alice", "bob"] {
            let got = result[who] as? [String: Any] ?? [:]
            #expect(got["joined_recording"] as? Bool == true, "\(who): \(got)")
        }
        let published = result["published"] as? [String: Double] ?? [:]

        // The four recordings as the library fetched them, and their media as ffprobe reads it.
        let recordings = result["recordings"] as? [[String: Any]] ?? []
        #expect(recordings.count == 4, "\(recordings)")
        #expect(Set(recordings.compactMap { $0["track_name"] as? String }) == ["mic", "camera"])
        #expect(result["rules"] as? [[String: Any]] != nil)
        for recording in recordings {
            let identity = recording["identity"] as? String ?? "?"
            let kind = recording["type"] as? String
            #expect(recording["status"] as? String == "completed" && recording["fetched_sid"] as? String == recording["sid"] as? String)
            #expect(recording["container_format"] as? String == (kind == "audio" ? "mka" : "mkv"))
            #expect(recording["codec"] as? String == (kind == "audio" ? "OPUS" : "VP8"))
            #expect((recording["grouping_room"] as? String)?.hasPrefix("RM") == true && (recording["source_sid"] as? String)?.hasPrefix("MT") == true)
            let path = try #require(recording["file"] as? String)
            let probe = try FFprobe.read(path)
            print("room recording: \(identity) \(kind ?? "?") \(probe)")
            #expect(probe.codecs == [kind == "audio" ? "opus" : "vp8"], "\(probe)")
            let seconds = published[identity] ?? 0
            #expect(abs(probe.duration - seconds) < 1.5, "\(identity) \(kind ?? ""): \(probe.duration) s recorded of \(seconds) s published")
            #expect(abs(Double(recording["duration"] as? Int ?? 0) - probe.duration) <= 1)
            // Everything decodes: about 50 Opus packets a second, aiortc's 30 frames a second.
            #expect(Double(probe.frames.first ?? 0) > (kind == "audio" ? 40 : 20) * seconds, "\(probe)")
            #expect((recording["size"] as? Int ?? 0) == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? -1))
        }
        // The room recorded by its rules: audio only.
        #expect((result["rules_room"] as? [String]) == ["audio"], "\(result["rules_room"] ?? "-")")

        // The compositions: completed, and what ffprobe reads in them.
        let compositions = result["compositions"] as? [[String: Any]] ?? []
        #expect(compositions.count == 2)
        for composition in compositions {
            #expect(composition["status"] as? String == "completed", "\(composition)")
            let path = try #require(composition["file"] as? String, "\(composition)")
            let probe = try FFprobe.read(path)
            print("room recording: composition \(composition["format"] ?? "?") \(probe)")
            let webm = composition["format"] as? String == "webm"
            #expect(probe.codecs.sorted() == (webm ? ["opus", "vp8"] : ["aac", "h264"]), "\(probe)")
            #expect(probe.width == 640 && probe.height == 480 && probe.frames.allSatisfy { $0 > 50 }, "\(probe)")
            let longest = published.values.max() ?? 0
            #expect(probe.duration > longest - 1.5 && probe.duration < longest + 4, "composition \(probe.duration) s, published \(published)")
            #expect(composition["duration"] as? Int ?? 0 >= 1 && composition["size"] as? Int ?? 0 > 0)
        }

        // Every callback signed; the room's in SequenceNumber order, the compositions' in theirs.
        var rooms = platform.app.requests("/rooms")
        for _ in 0..<5_000 where rooms.filter({ $0.parameters["StatusCallbackEvent"] == "recording-completed" }).count < 4 {
            try await Task.sleep(for: .milliseconds(1))
            rooms = platform.app.requests("/rooms")
        }
        let first = rooms.filter { $0.parameters["RoomSid"] == result["room"] as? String }
        #expect(first.map { $0.parameters["SequenceNumber"] } == (0..<first.count).map { String($0) })
        let events = first.compactMap { $0.parameters["StatusCallbackEvent"] }
        #expect(events.filter { $0 == "recording-started" }.count == 4 && events.filter { $0 == "recording-completed" }.count == 4,
                "\(events)")
        let completed = first.filter { $0.parameters["StatusCallbackEvent"] == "recording-completed" }
        #expect(completed.allSatisfy { ($0.parameters["Duration"].flatMap { Int($0) } ?? 0) >= 1 && $0.parameters["MediaUri"] != nil })
        let compositionCallbacks = platform.app.requests("/compositions")
        let perComposition = Dictionary(grouping: compositionCallbacks) { $0.parameters["CompositionSid"] ?? "" }
        #expect(perComposition.count == 2)
        // Each composition: enqueued, started, progress every 10 % (at least one, PercentageDone
        // rising, SecondsRemaining never negative), then available.
        for (_, list) in perComposition {
            let events = list.map { $0.parameters["StatusCallbackEvent"] ?? "" }
            let progress = list.filter { $0.parameters["StatusCallbackEvent"] == "composition-progress" }
            let percentages = progress.compactMap { $0.parameters["PercentageDone"].flatMap { Int($0) } }
            print("room recording: composition callbacks \(events), PercentageDone \(percentages), "
                  + "SecondsRemaining \(progress.map { $0.parameters["SecondsRemaining"] ?? "-" })")
            #expect(events.first == "composition-enqueued" && events.dropFirst().first == "composition-started"
                        && events.last == "composition-available", "\(events)")
            #expect(!progress.isEmpty && events.dropFirst(2).dropLast().allSatisfy { $0 == "composition-progress" }, "\(events)")
            #expect(percentages.count == progress.count && zip(percentages, percentages.dropFirst()).allSatisfy { $0 < $1 }
                        && percentages.allSatisfy { (10...100).contains($0) }, "\(percentages)")
            #expect(progress.allSatisfy { ($0.parameters["SecondsRemaining"].flatMap { Int($0) } ?? -1) >= 0 })
        }
        if let keep = ProcessInfo.processInfo.environment["PARLEY_KEEP_RECORDINGS"] {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: platform.dir.path)) ?? [] {
                try? FileManager.default.copyItem(atPath: platform.dir.path + "/" + file, toPath: keep + "/" + file)
            }
        }
        let all = rooms + compositionCallbacks
        #expect(try await platform.validateSignatures(all) == Array(repeating: true, count: all.count))
        await platform.stop()
    }
}

enum RoomRecordingScript {
    static let source = AiortcScriptPrelude.source(frequency: 440) + #"""
import os, urllib.request
import websockets
from aiortc import VideoStreamTrack, RTCBundlePolicy
from twilio.rest import Client

# Joins room `room`, publishes a mic (tone) and a camera, stays `seconds`, leaves.
async def participant(name, url, token, room, seconds, camera=True):
    got = {"recording_messages": []}
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))
    pc.addTransceiver(Tone(), direction="sendonly")
    if camera:
        pc.addTransceiver(VideoStreamTrack(), direction="sendonly")
    connected = watch(pc, got, time.perf_counter())
    names = {"audio": "mic", "video": "camera"}
    async with websockets.connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": "h", "v": 1, "token": token}))
        await pc.setLocalDescription(await pc.createOffer())
        tracks = [{"mid": t.mid, "name": names[t.kind], "kind": t.kind} for t in pc.getTransceivers()]
        await ws.send(json.dumps({"type": "room.join", "id": "j", "roomV": 1, "room": room,
                                  "offer": pc.localDescription.sdp, "tracks": tracks}))
        async def receive():
            async for raw in ws:
                m = json.loads(raw)
                if m.get("type") == "room.joined":
                    got["joined_recording"] = m["room"].get("isRecording")
                    await pc.setRemoteDescription(RTCSessionDescription(sdp=m["answer"], type="answer"))
                elif m.get("type") == "room.recording":
                    got["recording_messages"].append(m.get("isRecording"))
        reader = asyncio.ensure_future(receive())
        await asyncio.wait_for(connected.wait(), 15)
        start = time.monotonic()
        await asyncio.sleep(seconds)
        await ws.send(json.dumps({"type": "room.leave", "id": "l"}))
        got["published"] = round(time.monotonic() - start, 2)
        await pc.close()
        reader.cancel()
    return got

def download(c, uri, path):
    # The vendor's way: /Media answers JSON with redirect_to; that URL needs no credentials.
    response = c.request("GET", uri)
    location = json.loads(response.text)["redirect_to"]
    with urllib.request.urlopen(location) as media, open(path, "wb") as f:
        f.write(media.read())
    return response.status_code

def until(fn, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = fn()
        if value:
            return value
        time.sleep(0.2)
    return fn()

async def main(cfg):
    c = Client(cfg["key"], cfg["secret"], cfg["account"])
    c.video.base_url = cfg["base"]
    blocking = asyncio.get_event_loop().run_in_executor
    out = {}
    room = await blocking(None, lambda: c.video.v1.rooms.create(unique_name="recorded", status_callback=cfg["callback"],
                                                               record_participants_on_connect=True))
    out["room"] = room.sid
    alice = asyncio.ensure_future(participant("alice", cfg["ws"], cfg["alice"], "recorded", cfg["seconds"]))
    await asyncio.sleep(0.5)
    bob = asyncio.ensure_future(participant("bob", cfg["ws"], cfg["bob"], "recorded", cfg["seconds"]))
    a, b = await asyncio.gather(alice, bob)
    out["alice"], out["bob"] = a, b
    out["published"] = {"alice": a["published"], "bob": b["published"]}
    out["rules"] = (await blocking(None, lambda: c.video.v1.rooms(room.sid).recording_rules.fetch())).rules
    await blocking(None, lambda: c.video.v1.rooms(room.sid).update(status="completed"))

    def recordings_done():
        listed = c.video.v1.rooms(room.sid).recordings.list()
        return listed if len(listed) == 4 and all(r.status != "processing" for r in listed) else None
    listed = await blocking(None, lambda: until(recordings_done))
    out["recordings"] = []
    participants = {p.sid: p.identity for p in c.video.v1.rooms(room.sid).participants.list()}
    for r in listed or []:
        fetched = await blocking(None, lambda: c.video.v1.recordings(r.sid).fetch())
        path = os.path.join(cfg["out"], "%s.%s" % (r.sid, fetched.container_format))
        await blocking(None, lambda: download(c, fetched.links["media"], path))
        out["recordings"].append({"sid": r.sid, "fetched_sid": fetched.sid, "status": fetched.status,
                                  "type": fetched.type, "codec": fetched.codec, "container_format": fetched.container_format,
                                  "duration": fetched.duration, "size": fetched.size, "track_name": fetched.track_name,
                                  "source_sid": fetched.source_sid, "grouping_room": fetched.grouping_sids["room_sid"],
                                  "identity": participants.get(fetched.grouping_sids["participant_sid"]), "file": path})

    # A second room records by its rules: audio only.
    ruled = await blocking(None, lambda: c.video.v1.rooms.create(unique_name="ruled", status_callback=cfg["callback"]))
    await blocking(None, lambda: c.video.v1.rooms(ruled.sid).recording_rules.update(rules=[{"type": "include", "kind": "audio"}]))
    await participant("alice", cfg["ws"], cfg["alice"], "ruled", 1.5)
    await blocking(None, lambda: c.video.v1.rooms(ruled.sid).update(status="completed"))
    def ruled_done():
        listed = c.video.v1.recordings.list(grouping_sid=[ruled.sid])
        return listed if listed and all(r.status != "processing" for r in listed) else None
    out["rules_room"] = sorted(r.type for r in (await blocking(None, lambda: until(ruled_done)) or []))

    # Two compositions of the first room: a WebM grid of everything, an MP4 of alice's camera.
    requests = [dict(format="webm", audio_sources=["*"], video_layout={"grid": {"video_sources": ["*"]}}),
                dict(format="mp4", audio_sources=["mic"], resolution="640x480",
                     video_layout={"main": {"z_pos": 1, "max_columns": 1, "max_rows": 1, "video_sources": ["camera"]}})]
    out["compositions"] = []
    for request in requests:
        created = await blocking(None, lambda: c.video.v1.compositions.create(room_sid=room.sid, status_callback=cfg["compositions"],
                                                                            **request))
        def finished():
            got = c.video.v1.compositions(created.sid).fetch()
            return got if got.status in ("completed", "failed") else None
        done = await blocking(None, lambda: until(finished, 90))
        entry = {"sid": created.sid, "created_status": created.status, "status": done.status if done else None,
                 "format": request["format"], "duration": done.duration if done else None, "size": done.size if done else None}
        if done and done.status == "completed":
            path = os.path.join(cfg["out"], "%s.%s" % (created.sid, request["format"]))
            await blocking(None, lambda: download(c, done.links["media"], path))
            entry["file"] = path
        out["compositions"].append(entry)
    out["listed_compositions"] = len(await blocking(None, lambda: c.video.v1.compositions.list(room_sid=room.sid)))
    print(json.dumps({"result": out}), flush=True)

asyncio.run(main(json.loads(sys.argv[1])))
"""#
}
