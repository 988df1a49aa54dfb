extension ChromiumScripts {
    /// The SDK room run (after the prelude and `browser`); arguments: the in-process server's HTTP
    /// and media ports, the room, alice's token, the seconds to wait for media, and the SDK
    /// participant's identity. The server runs in the test process, outside this namespace: the
    /// test's `sdkBridge` carries its two ports into it, so the page reaches
    /// `127.0.0.1:HTTP` and `127.0.0.1:MEDIA` here as if the server were local. Waits for the
    /// bridge (the room page answers), opens the page as alice (`#token=…`; prints
    /// `{"event": "joined"}` once she has), polls her page until she sees and hears the SDK
    /// participant (> 100 audio packets with energy, > 30 frames decoded), measures the pitch of
    /// what she hears with WebAudio (`out["pitch"]`), then waits for the test to write `done` in the
    /// work directory (it has its own checks) before the last snapshot.
    static let sdkRoom = #"""
HTTP_PORT, MEDIA_PORT, ROOM, TOKEN, MEDIA_S, SDK = int(ARGS[0]), int(ARGS[1]), ARGS[2], ARGS[3], int(ARGS[4]), ARGS[5]
BASE = "http://127.0.0.1:%d" % HTTP_PORT
PEERS = ("alice",)
T0 = time.time()
ms = lambda: int((time.time() - T0) * 1000)

"""# + roomSteps + #"""
PITCH = """(async () => {
  const tile = [...document.querySelectorAll(".tile[data-sid]")]
    .find(el => el.querySelector(".name").textContent.startsWith(%s));
  const audio = tile && tile.querySelector("audio");
  if (!audio || !audio.srcObject) return {error: "no audio element for the participant"};
  const ctx = new AudioContext();
  await ctx.resume();
  const analyser = ctx.createAnalyser();
  analyser.fftSize = 16384;
  ctx.createMediaStreamSource(audio.srcObject).connect(analyser);
  await new Promise(r => setTimeout(r, 1500));
  const db = new Float32Array(analyser.frequencyBinCount);
  analyser.getFloatFrequencyData(db);
  let best = 1;
  for (let i = 1; i < db.length; i++) if (db[i] > db[best]) best = i;
  const result = {hz: best * ctx.sampleRate / analyser.fftSize, db: db[best], state: ctx.state, rate: ctx.sampleRate};
  await ctx.close();
  return result;
})()""" % json.dumps(SDK)

def emit(o):
    print(json.dumps(o), flush=True)

def main():
    if not bring_up_lo():
        return
    deadline = time.time() + 20
    while True:  # the bridge is up when the server's room page answers through it
        try:
            with urllib.request.urlopen(BASE + "/rooms/" + ROOM, timeout=2) as r:
                out["page"] = {"status": r.status, "has_parley_room": b"window.parleyRoom" in r.read()}
                break
        except Exception as e:
            if time.time() > deadline:
                out["error"] = "the bridge never answered: %r" % e
                return
            time.sleep(0.1)
    browsers = open_pages({"alice": TOKEN}, "&processing=0")
    emit({"event": (browsers["alice"].state() or {}).get("phase")})
    deadline = time.time() + MEDIA_S
    while time.time() < deadline:
        state = browsers["alice"].state()
        if state is None or state.get("phase") in ("failed", "disconnected"):
            break
        if hears(state, browsers["alice"].stats(), SDK):
            out["media_ms"] = ms()
            break
        time.sleep(0.25)
    try:
        out["pitch"] = browsers["alice"].evaluate(PITCH, timeout=15)
    except Exception as e:
        out["pitch"] = {"error": repr(e)}
    snapshot(browsers, "media")
    emit({"event": "media"})
    deadline = time.time() + MEDIA_S
    while not os.path.exists(os.path.join(work, "done")) and time.time() < deadline:
        time.sleep(0.1)
    snapshot(browsers, "end")
    close_pages(browsers)

run(main)
"""#

    /// The bridge between the test's network namespace and Chromium's (run on the test's side, by
    /// root, with the standard library only); arguments: the PID of a process in Chromium's
    /// namespace, the server's HTTP port and its media port. It binds `127.0.0.1:HTTP` (TCP) and
    /// `127.0.0.1:MEDIA` (UDP) inside that namespace (`setns`, then back), and relays: each TCP
    /// connection to the server's HTTP port, each UDP source to the server's media port from a
    /// socket of its own (as `parley netsim` does), answers back to that source. Prints
    /// `{"bridged": [HTTP, MEDIA]}` once bound, and counts what it relayed on SIGTERM.
    static let sdkBridge = #"""
import asyncio, ctypes, errno, json, os, signal, socket, sys, time

pid, http_port, media_port = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
CLONE_NEWNET = 0x40000000
libc = ctypes.CDLL(None, use_errno=True)
counts = {"tcp_connections": 0, "udp_sources": 0, "udp_in": 0, "udp_out": 0}

def setns(fd):
    if libc.setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns: " + os.strerror(ctypes.get_errno()))

def bind_inside():
    """The two listening sockets, made in the other namespace (its lo may not be up yet: retried for 15 s)."""
    here = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open("/proc/%d/ns/net" % pid, os.O_RDONLY)
    deadline = time.time() + 15
    while True:
        setns(there)
        try:
            tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            tcp.bind(("127.0.0.1", http_port))
            tcp.listen(64)
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            udp.bind(("127.0.0.1", media_port))
            return tcp, udp
        except OSError as e:
            if e.errno != errno.EADDRNOTAVAIL or time.time() > deadline:
                raise
        finally:
            setns(here)
        time.sleep(0.05)

async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()

async def on_client(reader, writer):
    counts["tcp_connections"] += 1
    try:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", http_port)
    except OSError:
        writer.close()
        return
    await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

class Inside(asyncio.DatagramProtocol):
    """The namespace's side of the media port: one upstream socket per source."""
    def __init__(self):
        self.upstreams = {}
    def connection_made(self, transport):
        self.transport = transport
    def datagram_received(self, data, addr):
        counts["udp_in"] += 1
        up = self.upstreams.get(addr)
        if up is None:
            self.upstreams[addr] = up = []  # packets wait here until the upstream socket is made
            asyncio.ensure_future(self.open(addr))
        if isinstance(up, list):
            up.append(data)
        else:
            up.sendto(data)
    async def open(self, addr):
        inside = self
        class Outside(asyncio.DatagramProtocol):
            def datagram_received(self, data, _):
                counts["udp_out"] += 1
                inside.transport.sendto(data, addr)
        counts["udp_sources"] += 1
        transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(Outside, remote_addr=("127.0.0.1", media_port))
        waiting, self.upstreams[addr] = self.upstreams[addr], transport
        for data in waiting:
            transport.sendto(data)

async def main():
    tcp, udp = bind_inside()
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    server = await asyncio.start_server(on_client, sock=tcp)
    await loop.create_datagram_endpoint(Inside, sock=udp)
    print(json.dumps({"bridged": [http_port, media_port]}), flush=True)
    await stop.wait()
    print(json.dumps({"counts": counts}), flush=True)
    server.close()

asyncio.run(main())
"""#
}
