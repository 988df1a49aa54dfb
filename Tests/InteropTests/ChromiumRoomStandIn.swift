extension ChromiumScripts {
    /// A stand-in for the server's side of the room family (docs/signaling.md §12), to check the
    /// room page on its own: aiortc answers each page (BUNDLE), `MediaRelay` puts each published
    /// track on a free receive slot of every other participant (`room.subscribed`, or
    /// `room.renegotiate` when there is none), in the server's order (docs/signaling.md §12,
    /// "Server behaviour"): `room.participantConnected` without tracks, `room.trackPublished` each,
    /// then `room.subscribed`; after `room.offer`, `room.answer` then `room.subscribed` for the new
    /// slots; `room.trackEnabled` becomes `room.trackChanged`; a leave (or a closed socket) sends
    /// `room.unsubscribed` and `room.trackUnpublished`, then `room.participantDisconnected`. The page itself comes from the real server; tokens
    /// are read, not verified. Runs in the venv (aiortc, aiohttp); arguments: port, the real
    /// server's base URL. Prints "listening" once bound.
    static let roomStandIn = #"""
import asyncio, base64, json, sys, urllib.request
import aioice.ice
aioice.ice.get_host_addresses = lambda *a, **k: ["127.0.0.1"]  # aiortc skips loopback otherwise
from aiohttp import web
from aiortc import RTCBundlePolicy, RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.contrib.media import MediaRelay

PORT, SERVER = int(sys.argv[1]), sys.argv[2]
PAGE = urllib.request.urlopen(SERVER + "/rooms/standup", timeout=5).read()
ROOM = {"sid": "RM" + "f" * 32, "name": "standup", "type": "group", "isRecording": False}
relay, people, counter = MediaRelay(), {}, [0]

def sid(prefix):
    counter[0] += 1
    return prefix + "%032x" % counter[0]

class Participant:
    def __init__(self, ws, identity):
        self.ws, self.identity, self.sid = ws, identity, sid("PA")
        # max-bundle: with aiortc's default (balanced) the later sections of a kind keep a dead transport
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))
        self.tracks, self.published, self.slots, self.used = [], {}, {}, {}

    def info(self):
        return {"sid": self.sid, "identity": self.identity, "state": "connected",
                "tracks": [{"sid": t["sid"], "name": t["name"], "kind": t["kind"], "enabled": True} for t in self.tracks]}

    def maps(self):
        return ([{"mid": m, "trackSid": s} for m, s in self.published.items()],
                [{"mid": m, "trackSid": t["sid"], "participantSid": t["owner"]} for m, t in self.used.items()])

    async def send(self, m):
        await self.ws.send_str(json.dumps(m))

    def subscribe(self, t):
        """Puts another's track t on a free slot; the subscription, or None."""
        for mid, tx in self.slots.items():
            if mid not in self.used and tx.kind == t["kind"] and t["media"] is not None:
                tx.sender.replaceTrack(relay.subscribe(t["media"]))
                self.used[mid] = t
                return {"mid": mid, "trackSid": t["sid"], "participantSid": t["owner"]}
        return None

    def missing(self):
        return [t for q in people.values() if q is not self for t in q.tracks if t not in self.used.values()]

    async def negotiate(self, offer, tracks):
        """Answers an offer: listed sections are published tracks, the other new ones receive slots."""
        media = {}
        @self.pc.on("track")
        def on_track(track):
            for tx in self.pc.getTransceivers():
                if tx.receiver.track is track:
                    media[tx.mid] = track
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        mids = [t["mid"] for t in tracks]
        for tx in self.pc.getTransceivers():
            if tx.mid in mids or tx.mid in self.published:
                tx.direction = "recvonly"
            else:
                tx.direction = "sendonly"
                self.slots.setdefault(tx.mid, tx)
        new = []
        for t in tracks:
            track = {"sid": sid("MT"), "name": t["name"], "kind": t["kind"], "owner": self.sid, "media": media.get(t["mid"])}
            self.tracks.append(track)
            self.published[t["mid"]] = track["sid"]
            new.append(track)
        await self.pc.setLocalDescription(await self.pc.createAnswer())
        return self.pc.localDescription.sdp, new

async def join(ws, m, identity):
    p = Participant(ws, identity)
    answer, new = await p.negotiate(m["offer"], m.get("tracks", []))
    for t in p.missing():
        p.subscribe(t)
    published, subscriptions = p.maps()
    await p.send({"type": "room.joined", "ref": m.get("id"), "roomV": 1, "room": ROOM, "participant": p.info(),
                  "participants": [q.info() for q in people.values()], "answer": answer,
                  "published": published, "subscriptions": subscriptions})
    missing = p.missing()
    if missing:
        await p.send({"type": "room.renegotiate", "audio": sum(t["kind"] == "audio" for t in missing),
                      "video": sum(t["kind"] == "video" for t in missing)})
    for q in people.values():  # the server's order: connected (no tracks), each track published, then subscribed
        await q.send({"type": "room.participantConnected", "participant": dict(p.info(), tracks=[])})
        for t in p.info()["tracks"]:
            await q.send({"type": "room.trackPublished", "participantSid": p.sid, "track": t})
        short = {"audio": 0, "video": 0}
        for t in new:
            s = q.subscribe(t)
            if s:
                await q.send(dict(type="room.subscribed", **s))
            else:
                short[t["kind"]] += 1
        if short["audio"] or short["video"]:
            await q.send(dict(type="room.renegotiate", **short))
    people[p.sid] = p
    return p

async def leave(p):
    if p is None or p.sid not in people:
        return
    del people[p.sid]
    await p.pc.close()
    for q in people.values():  # its tracks go first (unsubscribed, unpublished), then the participant
        for mid, t in list(q.used.items()):
            if t["owner"] == p.sid:
                q.slots[mid].sender.replaceTrack(None)
                del q.used[mid]
                await q.send({"type": "room.unsubscribed", "trackSid": t["sid"]})
        for t in p.tracks:
            await q.send({"type": "room.trackUnpublished", "participantSid": p.sid, "trackSid": t["sid"]})
        await q.send({"type": "room.participantDisconnected", "participantSid": p.sid})

async def signaling(request):
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    me = identity = None
    async for frame in ws:
        m = json.loads(frame.data)
        kind = m["type"]
        if kind == "hello":
            claims = m["token"].split(".")[1]
            identity = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))["grants"]["identity"]
            await ws.send_str(json.dumps({"type": "welcome", "ref": m.get("id"), "v": 1, "session": "SS" + "0" * 32,
                                          "identity": identity, "resumeWindow": 30, "heartbeat": 20}))
        elif kind == "ping":
            await ws.send_str(json.dumps({"type": "pong", "ref": m.get("id")}))
        elif kind == "room.join":
            me = await join(ws, m, identity)
        elif kind == "room.offer" and me:  # the answer, then room.subscribed for what the new slots took
            answer, _ = await me.negotiate(m["offer"], m.get("tracks", []))
            published, subscriptions = me.maps()
            await me.send({"type": "room.answer", "ref": m.get("id"), "answer": answer,
                           "published": published, "subscriptions": subscriptions})
            for t in me.missing():
                s = me.subscribe(t)
                if s:
                    await me.send(dict(type="room.subscribed", **s))
        elif kind == "room.trackEnabled" and me:
            for q in people.values():
                if q is not me:
                    await q.send({"type": "room.trackChanged", "participantSid": me.sid, "trackSid": m["trackSid"],
                                  "enabled": m["enabled"]})
        elif kind == "room.leave":
            await leave(me)
    await leave(me)
    return ws

async def page(request):
    return web.Response(body=PAGE, content_type="text/html")

async def main():
    app = web.Application()
    app.router.add_get("/rooms/{name}", page)
    app.router.add_get("/v1/signaling", signaling)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", PORT).start()
    print("listening", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""#
}
