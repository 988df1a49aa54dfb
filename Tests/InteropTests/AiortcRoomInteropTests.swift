import AccessToken
import Foundation
import ParleyServer
import ParleyStore
import ParleyTestSupport
import WebRTC
import Testing

/// A group room on a real `parley-server` (in process, its own WebRTC socket) with two aiortc
/// participants speaking the room signaling of docs/signaling.md §12 over WebSocket: alice joins
/// publishing a mic (Opus tone) and a camera (VP8) with no receive slot, bob joins publishing his
/// with two slots up front. Bob receives alice's tracks at once; alice is asked to renegotiate
/// (`room.renegotiate`), re-offers with two recvonly slots and then receives bob's. Each must
/// decode the other's audio and video; then bob leaves and alice sees him go. Both ask for
/// `room.dominantSpeaker` and `room.networkQuality`: each hears who speaks and its own level. The
/// room is made, listed (participants and their published tracks, while they are in) and
/// completed with the official `twilio` library, and every status callback it asked for is
/// checked: signed (`RequestValidator`), in SequenceNumber order, each participant's connect,
/// tracks added and removed, and disconnect, between room-created and room-ended.
///
/// Needs the project venv (aiortc, websockets); without it the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct AiortcRoomInteropTests {
    @Test(.timeLimit(.minutes(1))) func twoAiortcParticipantsSeeAndHearEachOther() async throws {
        let platform = try InteropPlatform(name: "aiortc-room")
        let server = platform.server
        platform.app.serve("/rooms", contentType: "text/plain", body: [])
        func token(_ identity: String) throws -> String {
            try InProcessPlatform.token(server, identity: identity, grants: [.video(VideoGrant(room: "standup"))])
        }
        let script = platform.dir.appendingPathComponent("room.py")
        try AiortcRoomClientScript.source.write(to: script, atomically: true, encoding: .utf8)
        let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
        let started = ContinuousClock.now
        let credentials = server.defaultCredentials
        let rest = ["base": platform.base, "account": credentials.account.sid, "key": credentials.apiKey.sid,
                    "secret": credentials.apiKey.secret, "callback": platform.app.baseURL + "/rooms"]
        let child = try ChildProcess(executable: python, arguments: [
            script.path, "ws://127.0.0.1:\(server.port)/v1/signaling", try token("alice"), try token("bob"), "4",
            String(decoding: try JSONSerialization.data(withJSONObject: rest), as: UTF8.self),
        ])
        defer { child.kill() }
        // The room sessions' counters while they run (they end with the script).
        var sessions: [String: String] = [:]
        let deadline = ContinuousClock.now + .seconds(45)
        while child.isRunning, ContinuousClock.now < deadline {
            for s in await server.media.sessions() where s.kind == .room { sessions[s.id] = "\(s.packetsSentBySSRC)" }
            try await Task.sleep(for: .milliseconds(100))
        }
        print("room sessions, packets sent per slot SSRC: \(sessions)")
        let exited = await child.wait(timeout: .seconds(45))
        let diagnostics = "stdout:\n\(child.stdout.suffix(3000))\nstderr:\n\(child.stderr.suffix(4000))"
        #expect(exited, "the room script did not finish\n\(diagnostics)")
        let result = try #require(child.jsonLines.last { $0["result"] != nil }?["result"] as? [String: Any],
                                  "no result\n\(diagnostics)")
        print("aiortc room (\(ContinuousClock.now - started)): \(result)")
        let alice = result["alice"] as? [String: Any] ?? [:], bob = result["bob"] as? [String: Any] ?? [:]
        for (name, got) in [("alice", alice), ("bob", bob)] {
            #expect(got["joined"] as? Bool == true, "\(name) did not join: \(got)")
            #expect(got["audio_frames"] as? Int ?? 0 > 100, "\(name) decoded \(got["audio_frames"] ?? 0) audio frames")
            #expect(got["audio_peak"] as? Double ?? 0 > 0.1, "\(name) heard no tone")
            #expect(got["video_frames"] as? Int ?? 0 > 30, "\(name) decoded \(got["video_frames"] ?? 0) video frames")
            #expect(got["video_size"] as? [Int] == [640, 480])
            #expect((got["errors"] as? [Any])?.isEmpty == true, "\(name) got errors: \(got["errors"] ?? [])")
        }
        // Who sent what: alice renegotiated once for bob's two tracks; bob needed no renegotiation.
        #expect(alice["renegotiations"] as? Int == 1 && bob["renegotiations"] as? Int == 0)
        // Bob's slots were filled in room.joined, alice's by room.subscribed after her re-offer.
        #expect(bob["slots_filled"] as? Int == 2 && alice["subscribed"] as? Int == 2)
        #expect(alice["saw_left"] as? Bool == true, "alice did not see bob leave")
        // Both asked for the floor and levels: each heard who speaks (both play a tone) and its own level.
        let sids = [alice["sid"] as? String, bob["sid"] as? String].compactMap { $0 }
        for (name, got) in [("alice", alice), ("bob", bob)] {
            let speakers = got["speakers"] as? [Any] ?? []
            #expect(!speakers.isEmpty && speakers.allSatisfy { ($0 as? String).map(sids.contains) == true },
                    "\(name)'s speakers: \(speakers)")
            let levels = got["levels"] as? [[String: Any]] ?? []
            #expect(levels.contains { $0["participantSid"] as? String == got["sid"] as? String && (0...5).contains($0["level"] as? Int ?? -1) },
                    "\(name)'s levels: \(levels)")
        }
        let types = alice["types"] as? [String] ?? []
        #expect(types.starts(with: ["welcome", "room.joined", "room.participantConnected", "room.trackPublished",
                                    "room.trackPublished", "room.renegotiate", "room.answer", "room.subscribed",
                                    "room.subscribed"]), "alice's messages: \(types)")

        // The twilio library created the room, listed the participants and their published tracks
        // while they were in, and completed it.
        let twilio = result["twilio"] as? [String: Any] ?? [:]
        print("aiortc room: twilio library saw \(twilio)")
        #expect(twilio["participants"] as? [String] == ["alice", "bob"], "\(twilio)")
        let published = twilio["published"] as? [String: [String]] ?? [:]
        #expect(published["alice"]?.sorted() == ["camera video", "mic audio"] && published["bob"]?.sorted() == ["camera video", "mic audio"])
        #expect(twilio["completed"] as? String == "completed")

        // Every status callback, signed and in SequenceNumber order.
        var callbacks = platform.app.requests("/rooms")
        for _ in 0..<5_000 where callbacks.last?.parameters["StatusCallbackEvent"] != "room-ended" {
            try await Task.sleep(for: .milliseconds(1))
            callbacks = platform.app.requests("/rooms")
        }
        let events = callbacks.map { [$0.parameters["StatusCallbackEvent"], $0.parameters["ParticipantIdentity"], $0.parameters["TrackName"]]
            .compactMap { $0 }.joined(separator: " ") }
        print("aiortc room: callbacks \(events)")
        #expect(callbacks.map { $0.parameters["SequenceNumber"] } == (0..<callbacks.count).map { String($0) })
        #expect(events.first == "room-created" && events.last == "room-ended")
        for who in ["alice", "bob"] {
            let mine = events.filter { $0.contains(" \(who)") }
            #expect(mine.first == "participant-connected \(who)" && mine.last == "participant-disconnected \(who)", "\(mine)")
            #expect(Set(mine.filter { $0.hasPrefix("track-added") }) == ["track-added \(who) mic", "track-added \(who) camera"])
            #expect(Set(mine.filter { $0.hasPrefix("track-removed") }) == ["track-removed \(who) mic", "track-removed \(who) camera"])
        }
        #expect(try await platform.validateSignatures(callbacks) == Array(repeating: true, count: callbacks.count))
        await platform.stop()
    }
}

enum AiortcRoomClientScript {
    static let source = AiortcScriptPrelude.source(frequency: 440) + #"""
import websockets
from aiortc import VideoStreamTrack, RTCBundlePolicy
from twilio.rest import Client

def track_list(pc, names):
    out = []
    for t in pc.getTransceivers():
        if t.direction == "sendonly":
            out.append({"mid": t.mid, "name": names[t.kind], "kind": t.kind})
    return out

async def participant(name, url, token, slots, t0, done, leave, joined):
    got = {"joined": False, "renegotiations": 0, "subscribed": 0, "errors": [], "types": [], "saw_left": False,
           "speakers": [], "levels": []}
    # max-bundle: with "balanced", aiortc 1.16 leaves a second recvonly video section of an
    # initial offer on its own transport although the answer bundles it (it never connects).
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))
    pc.addTransceiver(Tone(), direction="sendonly")
    pc.addTransceiver(VideoStreamTrack(), direction="sendonly")
    for _ in range(slots):
        pc.addTransceiver("audio", direction="recvonly")
        pc.addTransceiver("video", direction="recvonly")

    tally(pc, got, t0)

    names = {"audio": "mic", "video": "camera"}
    async with websockets.connect(url) as ws:
        async def send(message):
            await ws.send(json.dumps(message))
        await send({"type": "hello", "id": "h", "v": 1, "token": token})
        await pc.setLocalDescription(await pc.createOffer())
        await send({"type": "room.join", "id": "j", "roomV": 1, "offer": pc.localDescription.sdp,
                    "tracks": track_list(pc, names), "dominantSpeaker": True, "networkQuality": True})
        offers = 0
        async def receive():
            nonlocal offers
            async for raw in ws:
                m = json.loads(raw)
                kind = m.get("type")
                # Levels and the floor come whenever the server decides: kept out of the order.
                if kind == "room.dominantSpeaker":
                    got["speakers"].append(m.get("participantSid"))
                    continue
                if kind == "room.networkQuality":
                    got["levels"] += m.get("levels", [])
                    continue
                got["types"].append(kind)
                if kind == "room.joined":
                    got["sid"] = m["participant"]["sid"]
                if kind in ("room.joined", "room.answer"):
                    await pc.setRemoteDescription(RTCSessionDescription(sdp=m["answer"], type="answer"))
                    got["joined"] = True
                    got["slots_filled"] = len(m.get("subscriptions", []))
                    joined.set()
                elif kind == "room.renegotiate":
                    got["renegotiations"] += 1
                    for _ in range(m.get("audio", 0)):
                        pc.addTransceiver("audio", direction="recvonly")
                    for _ in range(m.get("video", 0)):
                        pc.addTransceiver("video", direction="recvonly")
                    await pc.setLocalDescription(await pc.createOffer())
                    offers += 1
                    await send({"type": "room.offer", "id": "o%d" % offers, "offer": pc.localDescription.sdp,
                                "tracks": track_list(pc, names)})
                elif kind == "room.subscribed":
                    got["subscribed"] += 1
                elif kind == "room.participantDisconnected":
                    got["saw_left"] = True
                    done.set()
                elif kind == "error" or kind == "room.disconnected":
                    got["errors"].append(m)
        reader = asyncio.ensure_future(receive())
        await leave.wait()
        stats = await pc.getStats()
        got["inbound"] = {r.kind: r.packetsReceived for r in stats.values() if r.type == "inbound-rtp"}
        if name == "bob":
            await send({"type": "room.leave", "id": "l"})
            await pc.close()
        else:
            try:
                await asyncio.wait_for(done.wait(), 10)
            except asyncio.TimeoutError:
                pass
            await pc.close()
        reader.cancel()
    return got

async def main(url, alice_token, bob_token, seconds, rest):
    t0 = time.perf_counter()
    twilio = {}
    c = Client(rest["key"], rest["secret"], rest["account"])
    c.video.base_url = rest["base"]
    blocking = asyncio.get_event_loop().run_in_executor
    room = await blocking(None, lambda: c.video.v1.rooms.create(unique_name="standup", status_callback=rest["callback"]))
    done, leave, alice_in, bob_in = asyncio.Event(), asyncio.Event(), asyncio.Event(), asyncio.Event()
    alice = asyncio.ensure_future(participant("alice", url, alice_token, 0, t0, done, leave, alice_in))
    await asyncio.wait_for(alice_in.wait(), 10)  # alice first, so bob's join finds her tracks
    bob = asyncio.ensure_future(participant("bob", url, bob_token, 1, t0, done, leave, bob_in))
    await asyncio.wait_for(bob_in.wait(), 10)
    await asyncio.sleep(seconds)
    def listing():
        people = c.video.v1.rooms(room.sid).participants.list(status="connected")
        twilio["participants"] = sorted(p.identity for p in people)
        twilio["published"] = {p.identity: ["%s %s" % (t.name, t.kind) for t in
                                            c.video.v1.rooms(room.sid).participants(p.sid).published_tracks.list()]
                               for p in people}
    await blocking(None, listing)
    leave.set()
    a, b = await asyncio.gather(alice, bob)
    twilio["completed"] = (await blocking(None, lambda: c.video.v1.rooms(room.sid).update(status="completed"))).status
    print(json.dumps({"result": {"alice": a, "bob": b, "twilio": twilio}}), flush=True)

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), json.loads(sys.argv[5])))
"""#
}
