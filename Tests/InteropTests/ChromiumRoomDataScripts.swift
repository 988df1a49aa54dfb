extension ChromiumScripts {
    /// The data track run (after the prelude and `browser`; it starts with `roomBrowser`); arguments: room name, seconds to
    /// wait for the data channels. Opens the room page as `alice`, then `bob`, each publishing the
    /// data tracks `chat` (ordered, reliable) and `chat-unreliable` (unordered, maxRetransmits 0;
    /// `#unreliable=1`), and polls until each has its own `chat` channel open and a channel from
    /// each of the other's data tracks. Then: one message each way on each track (text, sender and
    /// track checked by the test); 200 messages alice → bob 10 ms apart carrying their send time
    /// (latency through the SFU: both pages run on this machine's clock); `BULK` 110-byte messages
    /// alice → bob in chunks of `CHUNK`, at most two chunks ahead of bob, for messages/s; the REST
    /// API's PublishedTracks of alice; then alice closes `chat-unreliable` and bob must see it
    /// unpublished, and both leave.
    static let roomData = roomBrowser + #"""
BULK, CHUNK = 5000, 250
other = lambda w: [o for o in PEERS if o != w][0]

def data_sids(state, identity):
    for p in (state or {}).get("participants", {}).values():
        if p["identity"] == identity:
            return {t["name"]: sid for sid, t in p["tracks"].items() if t["kind"] == "data"}
    return {}

def data_ready(state, peer):
    """Our chat channel is open, and a channel from each of PEER's two data tracks."""
    if not state or state.get("phase") != "joined" or state.get("dataChannels", {}).get("chat") != "open":
        return False
    sids = data_sids(state, peer)
    return len(sids) == 2 and all(state.get("remoteData", {}).get(s, {}).get("state") == "open" for s in sids.values())

def got(state, sender, text, track):
    return any(m.get("from") == sender and m.get("text") == text and m.get("track") == track and not m.get("local")
               for m in (state or {}).get("messages", []))

def main():
    if not bring_up_lo() or not start_server(HTTP_PORT, MEDIA_PORT):
        return
    tokens = {who: mint("video", who, "--room", ROOM) for who in PEERS}
    lines = dict(l.split(":", 1) for l in cli("account", "--show-auth-token").splitlines() if ":" in l)
    account = (lines["Account SID"].strip(), lines["Auth token"].strip())
    out["pages"] = {}
    browsers = {}
    for who in PEERS:  # alice first; bob once she has joined (or failed)
        browsers[who] = Browser(who)
        browsers[who].call("Page.navigate", {"url": BASE + "/rooms/" + ROOM + "#token=" + tokens[who] + "&unreliable=1"},
                           session=True)
        deadline = time.time() + 20
        while not settled(browsers[who].state()) and time.time() < deadline:
            time.sleep(0.1)
        out["pages"][who] = {"settled_ms": ms()}
    deadline = time.time() + MEDIA_S
    while time.time() < deadline:
        states = {w: browsers[w].state() for w in PEERS}
        if any(s is None or s.get("phase") in ("failed", "disconnected") for s in states.values()):
            break
        if all(data_ready(states[w], other(w)) for w in PEERS):
            out["ready_ms"] = ms()
            break
        time.sleep(0.2)
    snapshot(browsers, "ready")
    if "ready_ms" in out:
        # One message each way on each data track.
        texts = {w: "hello from %s, über ✓" % w for w in PEERS}
        out["sent"] = {}
        for w in PEERS:
            out["sent"][w] = browsers[w].evaluate("window.parleyRoom.sendData(%s)" % json.dumps(texts[w]))
            out["sent"][w + "/unreliable"] = browsers[w].evaluate(
                "window.parleyRoom.sendData(%s, 'chat-unreliable')" % json.dumps("quick " + w))
        out["texts"] = texts
        start, arrived = ms(), {}
        deadline = time.time() + 10
        while time.time() < deadline and len(arrived) < 4:
            for w in PEERS:
                s, o = browsers[w].state(), other(w)
                if w not in arrived and got(s, o, texts[o], "chat"):
                    arrived[w] = ms() - start
                if w + "/unreliable" not in arrived and got(s, o, "quick " + o, "chat-unreliable"):
                    arrived[w + "/unreliable"] = ms() - start
            time.sleep(0.05)
        out["arrived_ms"] = arrived
        snapshot(browsers, "messages")

        # Latency alice -> bob through the SFU: 200 messages 10 ms apart, each with its send time.
        browsers["alice"].evaluate("(async () => { for (let i = 0; i < 200; i++) {"
                                   " window.parleyRoom.sendData('lat ' + i + ' ' + (performance.timeOrigin + performance.now()));"
                                   " await new Promise(r => setTimeout(r, 10)); } })()", timeout=30)
        latencies, deadline = {}, time.time() + 10
        while time.time() < deadline and len(latencies) < 200:
            for m in (browsers["bob"].state() or {}).get("messages", []):
                if m.get("from") == "alice" and m.get("text", "").startswith("lat "):
                    _, i, sent_at = m["text"].split(" ")
                    latencies[int(i)] = m["atEpoch"] - float(sent_at)
            time.sleep(0.1)
        out["latency_ms"] = sorted(latencies.values())

        # Messages/s alice -> bob on `chat`, in chunks: alice is at most two chunks ahead of what
        # bob received (a publisher that outruns its subscribers by more than their association
        # and backlog hold loses them the channel, by design).
        alice_chat = data_sids(browsers["bob"].state(), "alice").get("chat")
        counted = "(window.parleyRoom.remoteData[%s] || {messages: 0}).messages" % json.dumps(alice_chat)
        before = browsers["bob"].evaluate(counted)
        send = ("(() => { const ch = window.parleyRoom.dataChannel('chat'); const pad = 'x'.repeat(100);"
                " for (let i = 0; i < %d; i++) ch.send('bulk ' + i + ' ' + pad);"
                " return performance.timeOrigin + performance.now(); })()")
        sent, t0, deadline = 0, None, time.time() + 30
        while sent < BULK and time.time() < deadline:
            if sent - (browsers["bob"].evaluate(counted) - before) <= CHUNK:
                at = browsers["alice"].evaluate(send % CHUNK)
                t0 = t0 or at
                sent += CHUNK
            else:
                time.sleep(0.002)
        deadline, got_bulk = time.time() + 20, {}
        while time.time() < deadline:
            got_bulk = (browsers["bob"].state() or {}).get("remoteData", {}).get(alice_chat, {})
            if got_bulk.get("messages", 0) - before >= sent:
                break
            time.sleep(0.1)
        out["bulk"] = {"sent": sent, "received": got_bulk.get("messages", 0) - before, "t0": t0,
                       "last": got_bulk.get("lastAtEpoch")}

        # REST: alice's published tracks include both data tracks.
        listed = rest("/v1/Rooms?UniqueName=%s" % ROOM, account)
        rooms = listed["body"].get("rooms", []) if isinstance(listed["body"], dict) else []
        alice_sid = (browsers["alice"].state() or {}).get("participantSid")
        if rooms and alice_sid:
            out["rest_published"] = rest("/v1/Rooms/%s/Participants/%s/PublishedTracks" % (rooms[0]["sid"], alice_sid), account)

        # alice closes chat-unreliable: bob sees the track unpublished.
        unreliable_sid = data_sids(browsers["bob"].state(), "alice").get("chat-unreliable")
        browsers["alice"].evaluate("window.parleyRoom.dataChannel('chat-unreliable').close()")
        closed, deadline = ms(), time.time() + 10
        while time.time() < deadline:
            if unreliable_sid and unreliable_sid not in data_sids(browsers["bob"].state(), "alice").values():
                out["unpublished_ms"] = ms() - closed
                break
            time.sleep(0.1)
    for w in PEERS:
        if (browsers[w].state() or {}).get("phase") == "joined":
            browsers[w].evaluate("window.parleyRoom.leave()")
    snapshot(browsers, "end")
    for b in browsers.values():
        b.close()
    for who in PEERS:
        out["pages"][who]["chromium_stderr"] = tail(os.path.join(work, "chromium-%s.err" % who), 2000)
    out["server_stderr"] = tail(os.path.join(work, "server.err"), 3000)

run(main)
"""#
}
