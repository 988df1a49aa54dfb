import AccessToken
import Foundation
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// Data tracks with a second, independent SCTP stack: two aiortc participants (its own SCTP in
/// Python) join a group room on a real `parley-server` data-only — their offers have nothing but
/// the data channel section — each publishing `chat` (ordered, reliable) and `fast` (unordered,
/// maxRetransmits 0) as data channels. Each must receive, on the channels the server opened
/// toward it (labelled with the track SIDs that `room.subscribed` names), the other's string,
/// binary and unordered messages, in order on `chat`.
///
/// Needs the project venv (aiortc, websockets); without it the test fails, it does not skip.
@Suite(.serialized, .tags(.interop)) struct AiortcRoomDataInteropTests {
    @Test(.timeLimit(.minutes(1))) func twoDataOnlyAiortcParticipantsExchangeMessages() async throws {
        let platform = try InteropPlatform(name: "aiortc-room-data")
        let server = platform.server
        func token(_ identity: String) throws -> String {
            try InProcessPlatform.token(server, identity: identity, grants: [.video(VideoGrant(room: "datachat"))])
        }
        let script = platform.dir.appendingPathComponent("data.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
        let child = try ChildProcess(executable: python, arguments: [
            script.path, "ws://127.0.0.1:\(server.port)/v1/signaling", try token("alice"), try token("bob"),
        ])
        defer { child.kill() }
        let exited = await child.wait(timeout: .seconds(45))
        let diagnostics = "stdout:\n\(child.stdout.suffix(3000))\nstderr:\n\(child.stderr.suffix(4000))"
        #expect(exited, "the data script did not finish\n\(diagnostics)")
        let result = try #require(child.jsonLines.last { $0["result"] != nil }?["result"] as? [String: Any],
                                  "no result\n\(diagnostics)")
        print("aiortc room data: \(result)")
        for (me, other) in [("alice", "bob"), ("bob", "alice")] {
            let got = result[me] as? [String: Any] ?? [:]
            #expect((got["errors"] as? [Any])?.isEmpty == true, "\(me)'s errors: \(got["errors"] ?? "-")\n\(diagnostics)")
            let received = got["received"] as? [[String: Any]] ?? []
            func on(_ track: String) -> [[String: Any]] {
                received.filter { $0["from"] as? String == other && $0["track"] as? String == track }
            }
            let chat = on("chat")
            #expect(chat.map { $0["data"] as? String ?? "" } == ["hello from \(other)", "000102", "bye from \(other)"]
                    && chat.map { $0["binary"] as? Bool ?? false } == [false, true, false],
                    "\(me) got on \(other)'s chat: \(chat)\n\(diagnostics)")
            #expect(on("fast").map { $0["data"] as? String ?? "" } == ["fast from \(other)"], "\(me) got on fast: \(on("fast"))")
            // room.joined's subscriptions (bob) or room.subscribed (alice) named the data channel
            // section for both of the other's data tracks.
            let subscribed = got["subscribed"] as? [[String: Any]] ?? []
            #expect(subscribed.count == 2 && subscribed.allSatisfy { $0["mid"] as? String == "0" }, "\(me): \(subscribed)")
        }
    }

    static let script = AiortcScriptPrelude.source(frequency: 440) + #"""
import websockets
from aiortc import RTCBundlePolicy

async def participant(name, url, token, got, ready, everyone_ready, finished):
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))
    chat = pc.createDataChannel("chat")
    fast = pc.createDataChannel("fast", ordered=False, maxRetransmits=0)
    tracks = {}     # track SID -> (identity, name), from room signaling
    identities = {}
    incoming = {}   # label (track SID) -> channel
    def on_channel(channel):
        incoming[channel.label] = channel
        @channel.on("message")
        def on_message(message):
            who, track = tracks.get(channel.label, (None, None))
            binary = isinstance(message, bytes)
            got["received"].append({"from": who, "track": track, "binary": binary,
                                    "data": message.hex() if binary else message})
    pc.on("datachannel", on_channel)
    def learn(participant):
        identities[participant["sid"]] = participant["identity"]
        for t in participant.get("tracks", []):
            tracks[t["sid"]] = (participant["identity"], t["name"])
    async with websockets.connect(url) as ws:
        async def send(message):
            await ws.send(json.dumps(message))
        await send({"type": "hello", "id": "h", "v": 1, "token": token})
        await pc.setLocalDescription(await pc.createOffer())
        await send({"type": "room.join", "id": "j", "roomV": 1, "offer": pc.localDescription.sdp,
                    "tracks": [{"name": "chat", "kind": "data"}, {"name": "fast", "kind": "data"}]})
        async def receive():
            async for raw in ws:
                m = json.loads(raw)
                kind = m.get("type")
                if kind == "room.joined":
                    for p in m.get("participants", []):
                        learn(p)
                    got["subscribed"] += [{"trackSid": s["trackSid"], "mid": s.get("mid")} for s in m.get("subscriptions", [])]
                    await pc.setRemoteDescription(RTCSessionDescription(sdp=m["answer"], type="answer"))
                elif kind == "room.participantConnected":
                    learn(m["participant"])
                elif kind == "room.trackPublished":
                    t = m["track"]
                    tracks[t["sid"]] = (identities.get(m["participantSid"]), t["name"])
                elif kind == "room.subscribed":
                    got["subscribed"].append({"trackSid": m["trackSid"], "mid": m.get("mid")})
                elif kind in ("error", "room.disconnected"):
                    got["errors"].append(m)
        reader = asyncio.ensure_future(receive())
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if chat.readyState == "open" and fast.readyState == "open" and len(incoming) == 2 \
                    and all(c.readyState == "open" for c in incoming.values()):
                break
            await asyncio.sleep(0.05)
        ready.set()
        await everyone_ready.wait()
        chat.send("hello from " + name)
        chat.send(bytes([0, 1, 2]))
        fast.send("fast from " + name)
        chat.send("bye from " + name)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(got["received"]) < 4:
            await asyncio.sleep(0.05)
        finished.set()
        await asyncio.sleep(0.5)
        await send({"type": "room.leave", "id": "l"})
        await pc.close()
        reader.cancel()

async def main():
    url, alice, bob = sys.argv[1:4]
    result = {n: {"received": [], "subscribed": [], "errors": []} for n in ("alice", "bob")}
    ready = {n: asyncio.Event() for n in result}
    everyone = asyncio.Event()
    finished = {n: asyncio.Event() for n in result}
    async def gate():
        for e in ready.values():
            await e.wait()
        everyone.set()
    first = asyncio.ensure_future(participant("alice", url, alice, result["alice"], ready["alice"], everyone, finished["alice"]))
    await asyncio.sleep(1)
    second = asyncio.ensure_future(participant("bob", url, bob, result["bob"], ready["bob"], everyone, finished["bob"]))
    try:
        await asyncio.wait_for(asyncio.gather(gate(), first, second), 40)
    except Exception as e:
        result["exception"] = repr(e)
    print(json.dumps({"result": result}), flush=True)

asyncio.run(main())
"""#
}
