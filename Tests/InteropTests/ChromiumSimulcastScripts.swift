extension ChromiumScripts {
    /// The simulcast run (after the prelude and `browser`); arguments: the venv's python, then the
    /// relay's schedule in seconds from its start: when its rate limit starts, when it lifts, when
    /// bob stops, and the limit (kbit/s). Starts the server; alice joins from the room page with
    /// `#simulcast=1` (her camera at 960×540 in three VP8 layers); then `parley netsim` relays
    /// bob's media port with `--rate-at LIMIT:KBPS --rate-at LIFT:0`, and bob (aiortc,
    /// `bob.py`) joins through it, receiving alice's tracks and noting each change of the decoded
    /// picture size. Once a second it samples the server's /metrics and alice's per-layer stats.
    static let simulcast = #"""
PYTHON = ARGS[0]
LIMIT_AT, LIFT_AT, END_AT, KBPS = float(ARGS[1]), float(ARGS[2]), float(ARGS[3]), int(ARGS[4])
HTTP_PORT, MEDIA_PORT, RELAY_PORT = 18080, 18443, 18500
ROOM = "simulcast"

def metrics():
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % HTTP_PORT, timeout=3) as r:
            text = r.read().decode()
    except Exception as e:
        return {"error": repr(e)}
    wanted = ("parley_media_layer_switches_total", "parley_media_track_switches_total",
              "parley_media_retransmissions_total", "parley_media_rtp_forwarded_total",
              "parley_media_simulcast_layer0_packets_total", "parley_media_simulcast_layer1_packets_total",
              "parley_media_simulcast_layer2_packets_total")
    return {l.split()[0]: float(l.split()[1]) for l in text.splitlines() if l.split(" ")[0] in wanted}

def main():
    if not bring_up_lo() or not start_server(HTTP_PORT, MEDIA_PORT):
        return
    tokens = {who: mint("video", who, "--room", ROOM) for who in ("alice", "bob")}
    alice = Browser("alice")
    alice.call("Page.navigate", {"url": "http://127.0.0.1:%d/rooms/%s#token=%s&simulcast=1&slots=0" % (HTTP_PORT, ROOM, tokens["alice"])},
               session=True)
    deadline = time.time() + 20
    while not settled(alice.state()) and time.time() < deadline:
        time.sleep(0.1)
    out["alice_joined"] = (alice.state() or {}).get("phase")
    time.sleep(3)  # her send-side estimate ramps (transport-wide CC feedback) before bob arrives
    relay = spawn([cli_bin, "netsim", "--listen", "127.0.0.1:%d" % RELAY_PORT, "--forward", "127.0.0.1:%d" % MEDIA_PORT,
                   "--queue", "30", "--rate-at", "%g:%d" % (LIMIT_AT, KBPS), "--rate-at", "%g:0" % LIFT_AT], "netsim")
    deadline = time.time() + 10
    while "relaying" not in tail(os.path.join(work, "netsim.out")):
        if relay.poll() is not None or time.time() > deadline:
            out["error"] = "netsim did not start: %s" % tail(os.path.join(work, "netsim.err"))
            return
        time.sleep(0.05)
    started = time.time()
    bob = spawn([PYTHON, os.path.join(work, "bob.py"), "ws://127.0.0.1:%d/v1/signaling" % HTTP_PORT, tokens["bob"],
                 str(MEDIA_PORT), str(RELAY_PORT), repr(started), str(END_AT)], "bob")
    samples = []
    while bob.poll() is None and time.time() - started < END_AT + 20:
        sample = {"t": round(time.time() - started, 1), "metrics": metrics()}
        try:
            local = alice.evaluate("window.parleyRoom.localStats()")
            sample["alice_layers"] = [l for row in local if row["kind"] == "video" for l in row.get("layers", [])]
        except Exception as e:
            sample["alice_error"] = repr(e)
        samples.append(sample)
        time.sleep(1)
    out["samples"] = samples
    lines = [json.loads(l) for l in tail(os.path.join(work, "bob.out"), 200000).splitlines() if l.startswith("{")]
    out["bob"] = next((l["result"] for l in reversed(lines) if "result" in l), None)
    out["bob_samples"] = [l["sample"] for l in lines if "sample" in l]
    out["server_log"] = tail(os.path.join(work, "server.err"), 20000)
    out["bob_stderr"] = tail(os.path.join(work, "bob.err"), 3000)
    relay.terminate()
    try:
        relay.wait(5)
    except subprocess.TimeoutExpired:
        relay.kill()
    out["netsim"] = tail(os.path.join(work, "netsim.out"), 2000)
    out["alice_state"] = {k: v for k, v in (alice.state() or {}).items() if k in ("phase", "errors", "log")}
    out["alice_console"] = list(alice.console)
    alice.close()

run(main)
"""#

    /// Bob: an aiortc room participant that publishes nothing and receives in one audio and one
    /// video slot, over room signaling; its media goes through the relay (the answer's host
    /// candidate port is rewritten to the relay's). Prints `{"size": [t, w, h]}` at each change of
    /// the decoded picture size (t: seconds since the relay started) and `{"result": …}` at the end.
    static let simulcastSubscriber = #"""
import asyncio, json, sys, time
import aioice.ice
aioice.ice.get_host_addresses = lambda *a, **k: ["127.0.0.1"]  # aiortc skips loopback otherwise
import websockets
from aiortc import RTCPeerConnection, RTCConfiguration, RTCSessionDescription, RTCBundlePolicy

url, token, media_port, relay_port, started, seconds = sys.argv[1:7]
started, seconds = float(started), float(seconds)
now = lambda: round(time.time() - started, 2)
# [t, width, height] of each VP8 key frame that starts (retransmissions included, one entry per 100 ms and size):
# every one, not only size changes, since a switch's key frame can be lost on the full link and the
# next one then has the size of the last one seen.
keyframes = []
rtx = {"types": set(), "packets": 0}  # our answer's rtx payload types (RFC 4588), and packets seen on them

def keyframe_size(payload):
    """The size of the VP8 key frame this RTP payload starts (RFC 7741 §4.2, RFC 6386 §9.1), or None."""
    if len(payload) < 1 or not payload[0] & 0x10 or payload[0] & 0x07:
        return None  # not the start of partition 0
    i = 1
    if payload[0] & 0x80:
        x = payload[1]
        i = 2
        if x & 0x80:
            i += 2 if payload[i] & 0x80 else 1
        if x & 0x40:
            i += 1
        if x & 0x30:
            i += 1
    f = payload[i:i + 10]
    if len(f) < 10 or f[0] & 0x01 or f[3:6] != b"\x9d\x01\x2a":
        return None
    return (f[6] | (f[7] & 0x3F) << 8, f[8] | (f[9] & 0x3F) << 8)

# What the SFU forwards, seen before aiortc's jitter buffer: the size of each key frame that arrives.
from aiortc.rtcrtpreceiver import RTCRtpReceiver
_handle = RTCRtpReceiver._handle_rtp_packet
async def _observe(self, packet, arrival_time_ms):
    payload = packet.payload
    if packet.payload_type in rtx["types"]:
        rtx["packets"] += 1
        payload = payload[2:]  # RFC 4588: the original sequence number, then the original payload
    size = keyframe_size(payload) if payload else None
    if size and (not keyframes or tuple(keyframes[-1][1:]) != size or now() - keyframes[-1][0] >= 0.1):
        keyframes.append([now(), size[0], size[1]])
    await _handle(self, packet, arrival_time_ms)
RTCRtpReceiver._handle_rtp_packet = _observe

def emit(o):
    print(json.dumps(o), flush=True)

async def main():
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))
    pc.addTransceiver("audio", direction="recvonly")
    pc.addTransceiver("video", direction="recvonly")
    got = {"sizes": {}, "changes": [], "frames": 0, "audio_frames": 0, "types": [], "switched": [], "errors": []}

    @pc.on("track")
    def on_track(track):
        async def consume():
            last = None
            while True:
                try:
                    frame = await track.recv()
                except Exception:
                    return
                if track.kind != "video":
                    got["audio_frames"] += 1
                    continue
                got["frames"] += 1
                key = "%dx%d" % (frame.width, frame.height)
                got["sizes"][key] = got["sizes"].get(key, 0) + 1
                if key != last:
                    last = key
                    got["changes"].append([now(), frame.width, frame.height])
                    emit({"size": [now(), frame.width, frame.height]})
        asyncio.ensure_future(consume())

    def relayed(sdp):
        for line in sdp.split("\r\n"):
            if line.startswith("a=rtpmap:") and " rtx/" in line:
                rtx["types"].add(int(line[9:].split(" ")[0]))
        return sdp.replace(" %s typ host" % media_port, " %s typ host" % relay_port)

    async with websockets.connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": "h", "v": 1, "token": token}))
        await pc.setLocalDescription(await pc.createOffer())
        await ws.send(json.dumps({"type": "room.join", "id": "j", "roomV": 1, "offer": pc.localDescription.sdp, "tracks": []}))

        async def receive():
            async for raw in ws:
                m = json.loads(raw)
                kind = m.get("type")
                got["types"].append(kind)
                if kind == "ping":
                    await ws.send(json.dumps({"type": "pong", "ref": m.get("id")}))
                elif kind in ("room.joined", "room.answer"):
                    await pc.setRemoteDescription(RTCSessionDescription(sdp=relayed(m["answer"]), type="answer"))
                elif kind == "room.renegotiate":
                    for _ in range(m.get("audio", 0)):
                        pc.addTransceiver("audio", direction="recvonly")
                    for _ in range(m.get("video", 0)):
                        pc.addTransceiver("video", direction="recvonly")
                    await pc.setLocalDescription(await pc.createOffer())
                    await ws.send(json.dumps({"type": "room.offer", "id": "o", "offer": pc.localDescription.sdp, "tracks": []}))
                elif kind in ("room.trackSwitchedOff", "room.trackSwitchedOn"):
                    got["switched"].append([now(), kind])
                elif kind in ("error", "room.disconnected"):
                    got["errors"].append(m)

        async def heartbeat():
            n = 0
            while True:
                await asyncio.sleep(10)
                n += 1
                await ws.send(json.dumps({"type": "ping", "id": "p%d" % n}))

        async def sample():
            last = {}
            while True:
                await asyncio.sleep(1)
                stats = await pc.getStats()
                video = [r for r in stats.values() if r.type == "inbound-rtp" and r.kind == "video"]
                if video:
                    r = video[0]
                    emit({"sample": [now(), r.packetsReceived - last.get("received", 0), r.packetsLost - last.get("lost", 0),
                                     got["frames"] - last.get("frames", 0)]})
                    last = {"received": r.packetsReceived, "lost": r.packetsLost, "frames": got["frames"]}

        reader, beat, sampler = asyncio.ensure_future(receive()), asyncio.ensure_future(heartbeat()), asyncio.ensure_future(sample())
        await asyncio.sleep(max(0, seconds - now()))
        got["keyframes"] = keyframes
        got["rtx_packets"] = rtx["packets"]
        emit({"result": got})
        await ws.send(json.dumps({"type": "room.leave"}))
        await pc.close()
        for task in (reader, beat, sampler):
            task.cancel()

asyncio.run(main())
"""#
}
