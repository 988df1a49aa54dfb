extension ChromiumScripts {
    /// The room run (after the prelude); arguments: room name, media seconds, and optionally the
    /// receive slots per kind the pages offer up front (`#slots=N`; 0 makes every subscription
    /// go through `room.renegotiate`). Starts the server,
    /// mints video tokens for `alice` and `bob` (grant: the room), checks `GET /rooms/NAME`, then
    /// opens the page in two Chromium instances, each driven over the DevTools protocol on a pipe
    /// (`--remote-debugging-pipe`: fd 3 in, fd 4 out, NUL-separated JSON). alice first, bob once
    /// alice has joined (or failed). It polls both pages' `window.parleyRoom` until each has the
    /// other's audio (> 100 packets, energy > 0) and video (> 30 frames decoded), a page fails, or
    /// the media deadline passes; reads the room and its participants from the REST API (Basic
    /// auth, the default account); alice turns her camera off and it polls bob until he sees the
    /// track disabled; then bob leaves and it polls alice until she saw him go.
    /// `PARLEY_ROOM_SCREENSHOTS=DIR` saves each page as a PNG at both snapshots.
    static let room = roomBrowser + #"""
def main():
    if not bring_up_lo() or not start_server(HTTP_PORT, MEDIA_PORT,
                                             ["--room-publish-kbps", PUBLISH_KBPS] if PUBLISH_KBPS else []):
        return
    tokens = {who: mint("video", who, "--room", ROOM) for who in PEERS}
    lines = dict(l.split(":", 1) for l in cli("account", "--show-auth-token").splitlines() if ":" in l)
    account = (lines["Account SID"].strip(), lines["Auth token"].strip())
    with urllib.request.urlopen(BASE + "/rooms/" + ROOM, timeout=5) as r:
        body = r.read()
        out["page"] = {"status": r.status, "content_type": r.headers.get("Content-Type"),
                       "csp": r.headers.get("Content-Security-Policy"), "bytes": len(body),
                       "has_parley_room": b"window.parleyRoom" in body}
    browsers = open_pages(tokens, "&slots=" + SLOTS if SLOTS else "")
    wait_for_media(browsers)
    snapshot(browsers, "media")
    listed = rest("/v1/Rooms?UniqueName=%s" % ROOM, account)
    out["rest_rooms"] = listed
    rooms = listed["body"].get("rooms", []) if isinstance(listed["body"], dict) else []
    if rooms:
        out["rest_participants"] = rest("/v1/Rooms/%s/Participants" % rooms[0]["sid"], account)
    camera_off(browsers)
    if bob_leaves(browsers) and rooms:
        out["rest_participants_after"] = rest("/v1/Rooms/%s/Participants" % rooms[0]["sid"], account)
    snapshot(browsers, "end")
    close_pages(browsers)

run(main)
"""#

    /// What room runs that use the room's arguments share (after the prelude and `browser`): the
    /// arguments (room name, seconds, slots, publish cap) and ports, then `roomSteps`.
    static let roomBrowser = #"""
ROOM, MEDIA_S = ARGS[0], int(ARGS[1])
SLOTS, PUBLISH_KBPS = (ARGS[2:] + ["", ""])[:2]
HTTP_PORT, MEDIA_PORT = 18080, 18443
BASE = "http://127.0.0.1:%d" % HTTP_PORT
PEERS = ("alice", "bob")
T0 = time.time()
ms = lambda: int((time.time() - T0) * 1000)

"""# + roomSteps

    /// What the two-page room runs share (after the prelude, `browser` and the run's constants:
    /// `BASE`, `ROOM`, `PEERS`, `MEDIA_S`): `hears`, `rest` (GET or POST with Basic auth),
    /// `snapshot`, and the run's steps: `open_pages`, `wait_for_media`, `camera_off`, `bob_leaves`,
    /// `close_pages`.
    static let roomSteps = #"""
def hears(state, stats, other):
    """True when the page has `other` in the room and its audio and video flowing."""
    if not state or state.get("phase") != "joined":
        return False
    if other not in [p["identity"] for p in state.get("participants", {}).values()]:
        return False
    mine = [r for r in stats or [] if r.get("identity") == other]
    audio = any(r["kind"] == "audio" and r["packetsReceived"] > 100 and (r.get("totalAudioEnergy") or 0) > 0 for r in mine)
    video = any(r["kind"] == "video" and r.get("framesDecoded", 0) > 30 for r in mine)
    return audio and video

def rest(path, account, fields=None):
    """GET PATH with Basic auth, or POST FIELDS form-encoded: {"status", "body"}."""
    import base64, urllib.parse
    data = urllib.parse.urlencode(fields).encode() if fields is not None else None
    req = urllib.request.Request(BASE + path, data=data)
    req.add_header("Authorization", "Basic " + base64.b64encode(("%s:%s" % account).encode()).decode())
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return {"status": r.status, "body": json.loads(r.read() or b"null")}
    except urllib.error.HTTPError as e:
        return {"status": e.code, "body": e.read().decode(errors="replace")[:2000]}

def snapshot(browsers, key):
    for name, b in browsers.items():
        page = out["pages"].setdefault(name, {})
        try:
            page[key] = {"state": b.state(), "stats": b.stats(),
                         "local": b.evaluate("window.parleyRoom ? window.parleyRoom.localStats() : []")}
        except Exception as e:
            page[key] = {"error": repr(e)}
        page["console"] = list(b.console)
        shots = os.environ.get("PARLEY_ROOM_SCREENSHOTS")  # a directory: each page as PNG, to look at
        if shots:
            import base64
            try:
                png = b.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
                with open(os.path.join(shots, "%s-%s.png" % (name, key)), "wb") as f:
                    f.write(base64.b64decode(png))
            except Exception as e:
                page[key + "_screenshot_error"] = repr(e)

def open_pages(tokens, extra=""):
    """The room page as each of PEERS (`#token=…` + EXTRA): alice first, bob once she has joined (or failed)."""
    out["pages"] = {}
    browsers = {}
    for who in PEERS:
        browsers[who] = Browser(who)
        out["pages"].setdefault(who, {})["opened_ms"] = ms()
        browsers[who].call("Page.navigate", {"url": BASE + "/rooms/" + ROOM + "#token=" + tokens[who] + extra}, session=True)
        deadline = time.time() + 20
        while not settled(browsers[who].state()) and time.time() < deadline:
            time.sleep(0.1)
        out["pages"][who]["settled_ms"] = ms()
    return browsers

def wait_for_media(browsers):
    """Polls until each page hears and sees the other (out["media_ms"]), a page fails, or MEDIA_S passes."""
    deadline = time.time() + MEDIA_S
    while time.time() < deadline:
        states = {w: browsers[w].state() for w in PEERS}
        if any(s is None or s.get("phase") in ("failed", "disconnected") for s in states.values()):
            return
        if all(hears(states[w], browsers[w].stats(), [o for o in PEERS if o != w][0]) for w in PEERS):
            out["media_ms"] = ms()
            return
        time.sleep(0.25)

def camera_off(browsers):
    """alice turns her camera off: bob must see her video track disabled (room.trackChanged), out["camera_off_ms"]."""
    if not all((browsers[w].state() or {}).get("phase") == "joined" for w in PEERS):
        return
    browsers["alice"].evaluate("window.parleyRoom.setCamera(false)")
    off = ms()
    deadline = time.time() + 5
    while time.time() < deadline:
        others = (browsers["bob"].state() or {}).get("participants", {}).values()
        tracks = [t for p in others if p["identity"] == "alice" for t in p["tracks"].values()]
        if any(t["kind"] == "video" and not t["enabled"] for t in tracks):
            out["camera_off_ms"] = ms() - off
            return
        time.sleep(0.1)

def bob_leaves(browsers, gone=lambda alice: True):
    """bob leaves; alice must see participantDisconnected (and GONE of her state), out["leave"]. False if bob was not in."""
    bob_sid = ((out["pages"]["bob"].get("media") or {}).get("state") or {}).get("participantSid")
    out["leave"] = {"bob_sid": bob_sid}
    if not bob_sid or (browsers["bob"].state() or {}).get("phase") != "joined":
        return False
    browsers["bob"].evaluate("window.parleyRoom.leave()")
    left = ms()
    deadline = time.time() + 10
    while time.time() < deadline:
        alice = browsers["alice"].state() or {}
        if bob_sid in [d["sid"] for d in alice.get("departed", [])] and gone(alice):
            out["leave"]["alice_saw_ms"] = ms() - left
            break
        time.sleep(0.1)
    return True

def close_pages(browsers):
    for b in browsers.values():
        b.close()
    for who in PEERS:
        out["pages"][who]["chromium_stderr"] = tail(os.path.join(work, "chromium-%s.err" % who), 2000)

"""#
}
