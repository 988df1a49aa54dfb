import Foundation
import ParleyTestSupport

extension ChromiumScripts {
    /// The peer-to-peer room run (after the prelude and `browser`); arguments: room name, room type
    /// (`peer-to-peer` or `go`), media seconds, and a JSON array: empty for direct ICE, else
    /// coturn's command line (`Coturn.arguments`, `use-auth-secret` with the secret that follows
    /// as the array's last item). With coturn it starts coturn first and the server with
    /// `--ice-server turn:127.0.0.1:3478?transport=udp --turn-secret-file`, and opens the pages
    /// with `#relay=1`. It creates the room over REST (`POST /v1/Rooms`, Type), opens the room page
    /// as alice, then bob (the newer, who offers), polls until each has the other's audio and video,
    /// snapshots both pages (state, inbound stats, each peer's selected candidate pair) and the
    /// server's `/metrics` and REST participants and published tracks; alice turns her camera off
    /// (bob must see it through the server); bob leaves and alice must see him go.
    static let mesh = #"""
ROOM, TYPE, MEDIA_S = ARGS[0], ARGS[1], int(ARGS[2])
COTURN = json.loads(ARGS[3]) if len(ARGS) > 3 and ARGS[3] else []
HTTP_PORT, MEDIA_PORT, TURN_PORT = 18080, 18443, 3478
BASE = "http://127.0.0.1:%d" % HTTP_PORT
PEERS = ("alice", "bob")
T0 = time.time()
ms = lambda: int((time.time() - T0) * 1000)

"""# + roomSteps + #"""
def metrics():
    with urllib.request.urlopen(BASE + "/metrics", timeout=5) as r:
        lines = r.read().decode().splitlines()
    return {l.split()[0]: float(l.split()[1]) for l in lines if l.startswith("parley_media_") and len(l.split()) == 2}

def pairs(b):
    return b.evaluate("window.parleyRoom ? window.parleyRoom.candidatePairs() : []")

def main():
    if not bring_up_lo():
        return
    extra = []
    if COTURN:
        secret = COTURN[-1]
        coturn = spawn(COTURN[:-1], "coturn")
        deadline = time.time() + 10
        while "Total General servers" not in tail(os.path.join(work, "coturn.out"), 20000):
            if coturn.poll() is not None or time.time() > deadline:
                out["error"] = "coturn did not start (exit %s): %s" % (coturn.poll(), tail(os.path.join(work, "coturn.out")))
                return
            time.sleep(0.05)
        time.sleep(0.3)  # its listeners open just after the servers start
        with open(os.path.join(work, "turn-secret"), "w") as f:
            f.write(secret + "\n")
        os.chmod(os.path.join(work, "turn-secret"), 0o600)
        extra = ["--ice-server", "turn:127.0.0.1:%d?transport=udp" % TURN_PORT, "--turn-secret-file", os.path.join(work, "turn-secret")]
    if not start_server(HTTP_PORT, MEDIA_PORT, extra):
        return
    tokens = {who: mint("video", who, "--room", ROOM) for who in PEERS}
    lines = dict(l.split(":", 1) for l in cli("account", "--show-auth-token").splitlines() if ":" in l)
    account = (lines["Account SID"].strip(), lines["Auth token"].strip())
    created = rest("/v1/Rooms", account, {"UniqueName": ROOM, "Type": TYPE})
    out["created"] = created
    if created["status"] != 201:
        out["error"] = "POST /v1/Rooms: %s" % created
        return
    browsers = open_pages(tokens, "&relay=1" if COTURN else "")
    wait_for_media(browsers)
    snapshot(browsers, "media")
    for who, b in browsers.items():
        try:
            out["pages"][who]["pairs"] = pairs(b)
        except Exception as e:
            out["pages"][who]["pairs_error"] = repr(e)
    out["metrics"] = metrics()
    room_sid = created["body"]["sid"]
    out["rest_participants"] = rest("/v1/Rooms/%s/Participants" % room_sid, account)
    alice_sid = ((out["pages"]["alice"].get("media") or {}).get("state") or {}).get("participantSid")
    if alice_sid:
        out["rest_alice_tracks"] = rest("/v1/Rooms/%s/Participants/%s/PublishedTracks" % (room_sid, alice_sid), account)
    if COTURN:
        out["coturn_log"] = tail(os.path.join(work, "coturn.out"), 6000)
    # A data track message, alice → bob over their pair's data channel.
    deadline = time.time() + 5
    while not browsers["alice"].evaluate("window.parleyRoom.sendData('hello over the mesh')") and time.time() < deadline:
        time.sleep(0.05)  # the pair's channel is not open yet
    sent_at = ms()
    out["chat"] = {"sent_ms": sent_at}
    deadline = time.time() + 5
    while time.time() < deadline:
        got = [m for m in (browsers["bob"].state() or {}).get("messages", []) if m.get("from") == "alice" and m.get("track") == "chat"]
        if any(m.get("text") == "hello over the mesh" for m in got):
            out["chat_ms"] = ms() - sent_at
            break
        time.sleep(0.05)
    camera_off(browsers)  # through the server: room.trackEnabled → room.trackChanged
    bob_leaves(browsers, gone=lambda alice: not (alice.get("mesh") or {}).get("peers"))  # and alice closed her connection to him
    snapshot(browsers, "end")
    out["metrics_end"] = metrics()
    close_pages(browsers)

run(main)
"""#
}

extension ChromiumRun {
    /// Two Chromium instances in a `peer-to-peer` or `go` room (`ChromiumScripts.mesh`); `relay`:
    /// through a coturn started in the namespace with `use-auth-secret` and a fresh secret the
    /// server shares, every page relay-only.
    static func mesh(_ name: String, type: String, mediaSeconds: Int, relay: Bool) throws -> ChromiumRun {
        var coturn = ""
        if relay {
            let secret = "parley-mesh-\(UInt64.random(in: 0...UInt64.max))"
            let command = [Coturn.executable]
                + Coturn.arguments(port: 3478, auth: ["--use-auth-secret", "--static-auth-secret=\(secret)"]) + [secret]
            coturn = String(decoding: try JSONSerialization.data(withJSONObject: command), as: UTF8.self)
        }
        return try ChromiumRun(orchestrator: ChromiumScripts.browser + ChromiumScripts.mesh, arguments: [name, type, String(mediaSeconds), coturn])
    }
}
