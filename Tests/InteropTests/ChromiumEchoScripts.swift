extension ChromiumScripts {
    /// The page: fake-mic audio offer → POST /v1/echo (cross-origin, Bearer token) → connected →
    /// getStats() for a few seconds → DELETE → the result as JSON in `<pre id="result">` and POST /result.
    static let echoPage = #"""
<!doctype html>
<html><head><meta charset="utf-8"><title>parley chromium echo</title></head>
<body>
<pre id="result"></pre>
<audio id="remote" autoplay></audio>
<script>
"use strict";
const q = new URLSearchParams(location.search);
const echoURL = q.get("echo"), token = q.get("token"), statsMs = Number(q.get("stats_ms") || 4000);
const wantVideo = q.get("video") === "1";
const wantRED = q.get("red") !== "0";
const r = {states: [], ice_states: [], connection_state: "new"};
const now = () => performance.now();
const sleep = ms => new Promise(res => setTimeout(res, ms));
const bounded = (p, ms, what) => Promise.race([p, sleep(ms).then(() => { throw new Error(what + " timed out after " + ms + " ms"); })]);
let pc = null;
async function finish() {
  r.finished_ms = Math.round(now());
  document.getElementById("result").textContent = JSON.stringify(r);
  document.title = "done";
  try { await fetch("/result", {method: "POST", body: JSON.stringify(r)}); } catch (e) {}
}
async function main() {
  const stream = await bounded(navigator.mediaDevices.getUserMedia({audio: true, video: wantVideo}), 5000, "getUserMedia");
  r.local_tracks = stream.getTracks().map(t => t.kind + ":" + t.label);
  pc = new RTCPeerConnection({iceServers: []});
  const t0 = now();
  let tPost = 0;
  const connected = new Promise((resolve, reject) => {
    pc.onconnectionstatechange = () => {
      r.states.push([pc.connectionState, Math.round(now() - t0)]);
      if (pc.connectionState === "connected") resolve(now());
      if (pc.connectionState === "failed" || pc.connectionState === "closed") reject(new Error("connectionState " + pc.connectionState));
    };
  });
  connected.catch(() => {});
  pc.oniceconnectionstatechange = () => r.ice_states.push([pc.iceConnectionState, Math.round(now() - t0)]);
  pc.ontrack = ev => {
    r.remote_track = ev.track.kind;
    const el = document.getElementById("remote");
    el.srcObject = ev.streams[0] || new MediaStream([ev.track]);
    el.play().catch(e => { r.play_error = String(e); });
  };
  stream.getTracks().forEach(t => pc.addTrack(t, stream));
  // With RED, red/48000/2 first (libwebrtc sends RED only when it leads its codec list, as
  // LiveKit's client asks for it); without, every codec but RED.
  const isRED = c => c.mimeType.toLowerCase() === "audio/red";
  const codecs = RTCRtpReceiver.getCapabilities("audio").codecs;
  pc.getTransceivers().filter(t => t.sender.track && t.sender.track.kind === "audio").forEach(t =>
    t.setCodecPreferences(wantRED ? codecs.filter(isRED).concat(codecs.filter(c => !isRED(c))) : codecs.filter(c => !isRED(c))));
  await pc.setLocalDescription(await pc.createOffer());
  const gathered = new Promise(res => {
    if (pc.iceGatheringState === "complete") return res();
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") res(); };
  });
  await bounded(gathered, 5000, "ICE gathering");
  const offer = pc.localDescription.sdp;
  r.offer_candidates = offer.split(/\r?\n/).filter(l => l.startsWith("a=candidate"));
  r.gathered_ms = Math.round(now() - t0);
  tPost = now();
  const resp = await bounded(fetch(echoURL, {method: "POST", body: offer,
    headers: {"Authorization": "Bearer " + token, "Content-Type": "application/sdp"}}), 5000, "POST");
  r.post_status = resp.status;
  r.location = resp.headers.get("Location");
  const answer = await resp.text();
  r.post_ms = Math.round(now() - tPost);
  if (resp.status !== 201) { r.error = "POST " + resp.status + ": " + answer; return; }
  r.answer_sdp = answer;
  try {
    await pc.setRemoteDescription({type: "answer", sdp: answer});
  } catch (e) { r.error = "setRemoteDescription: " + e; r.offer_sdp = offer; return; }
  const tConnected = await bounded(connected, 10000, "connected");
  r.connection_state = pc.connectionState;
  r.offer_to_connected_ms = Math.round(tConnected - tPost);
  r.create_offer_to_connected_ms = Math.round(tConnected - t0);
  r.polls = 0; r.max_audio_level = 0;
  const end = now() + statsMs;
  while (now() < end) {
    await sleep(250);
    const stats = await pc.getStats();
    r.polls++;
    stats.forEach(s => {
      if (s.type === "inbound-rtp" && s.kind === "audio") {
        r.inbound = {packetsReceived: s.packetsReceived, bytesReceived: s.bytesReceived, packetsLost: s.packetsLost,
                     jitter: s.jitter, audioLevel: s.audioLevel, totalAudioEnergy: s.totalAudioEnergy,
                     totalSamplesReceived: s.totalSamplesReceived, concealedSamples: s.concealedSamples,
                     ssrc: s.ssrc, codecId: s.codecId};
        if (typeof s.audioLevel === "number") r.max_audio_level = Math.max(r.max_audio_level, s.audioLevel);
      }
      if (s.type === "outbound-rtp" && s.kind === "audio") r.outbound = {packetsSent: s.packetsSent, ssrc: s.ssrc, codecId: s.codecId};
      if (s.type === "inbound-rtp" && s.kind === "video") {
        r.inbound_video = {packetsReceived: s.packetsReceived, framesDecoded: s.framesDecoded, frameWidth: s.frameWidth,
                           frameHeight: s.frameHeight, keyFramesDecoded: s.keyFramesDecoded, pliCount: s.pliCount,
                           ssrc: s.ssrc, codecId: s.codecId};
      }
      if (s.type === "outbound-rtp" && s.kind === "video") r.outbound_video = {packetsSent: s.packetsSent, ssrc: s.ssrc};
      if (s.type === "codec" && r.inbound && s.id === r.inbound.codecId) r.codec = s.mimeType + "/" + s.payloadType;
      if (s.type === "codec" && r.outbound && s.id === r.outbound.codecId) r.outbound_codec = s.mimeType + "/" + s.payloadType;
      if (s.type === "codec" && r.inbound_video && s.id === r.inbound_video.codecId) r.video_codec = s.mimeType + "/" + s.payloadType;
      if (s.type === "transport") r.dtls = {dtlsState: s.dtlsState, srtpCipher: s.srtpCipher, tlsVersion: s.tlsVersion};
    });
  }
  r.connection_state_after_stats = pc.connectionState;
  if (r.location) {
    const del = await bounded(fetch(new URL(r.location, echoURL).href, {method: "DELETE",
      headers: {"Authorization": "Bearer " + token}}), 5000, "DELETE");
    r.delete_status = del.status;
  }
}
main().catch(e => { r.error = String(e && e.message || e); })
  .finally(() => { r.connection_state_final = pc ? pc.connectionState : "none"; if (pc) pc.close(); finish(); });
</script>
<img src="/slow" alt="">
</body></html>
"""#

    /// The echo run (after the prelude); arguments: stats ms, video (0/1), red (0/1). Serves the
    /// page from a second origin (so CORS is exercised), runs Chromium with `--dump-dom` and reads
    /// the result from the DOM; the page holds its load event (an `<img>` on `/slow`, answered once
    /// the page has posted its result) so `--dump-dom` sees it.
    static let echo = #"""
stats_ms, video, red = (ARGS + ["4000", "0", "1"][len(ARGS):])[:3]
HTTP_PORT, MEDIA_PORT, STATIC_PORT = 18080, 18443, 18000
HOLD_S, CHROMIUM_S = 30, 38
result_posted = threading.Event()

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def send(self, code, body=b"", ctype="text/plain"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/page.html":
            with open(os.path.join(work, "page.html"), "rb") as f:
                self.send(200, f.read(), "text/html; charset=utf-8")
        elif path == "/slow":  # holds the load event (and so --dump-dom) until the page has its result
            result_posted.wait(HOLD_S)
            self.send(200, b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>', "image/svg+xml")
        else:
            self.send(404)
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        if self.path == "/result":
            try:
                out["posted_result"] = json.loads(body)
            except ValueError:
                out["posted_result_raw"] = body.decode(errors="replace")[:2000]
            result_posted.set()
            self.send(204)
        else:
            self.send(404)

def main():
    if not bring_up_lo():
        return
    if not start_server(HTTP_PORT, MEDIA_PORT):
        return
    token = mint("voice", "chromium_test", "--incoming")

    static = http.server.ThreadingHTTPServer(("127.0.0.1", STATIC_PORT), Handler)
    static.daemon_threads = True
    threading.Thread(target=static.serve_forever, daemon=True).start()

    from urllib.parse import urlencode
    echo = "http://127.0.0.1:%d/v1/echo" % HTTP_PORT
    page = "http://127.0.0.1:%d/page.html?%s" % (STATIC_PORT, urlencode({"echo": echo, "token": token, "stats_ms": stats_ms, "video": video, "red": red}))
    t0 = time.time()
    browser = spawn(chromium_args(os.path.join(work, "profile"), "--dump-dom", page), "chromium")
    try:
        browser.wait(CHROMIUM_S)
    except subprocess.TimeoutExpired:
        out["error"] = "chromium did not finish within %d s" % CHROMIUM_S
    out["chromium_exit"] = browser.poll()
    out["chromium_s"] = round(time.time() - t0, 2)
    dom = tail(os.path.join(work, "chromium.out"), 200000)
    m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    if m and m.group(1).strip():
        out["result"] = json.loads(html.unescape(m.group(1)))
    else:
        out["dom_tail"] = dom[-2000:]
    out["chromium_stderr"] = tail(os.path.join(work, "chromium.err"), 3000)
    out["server_stderr"] = tail(os.path.join(work, "server.err"), 3000)
    try:
        metrics = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % HTTP_PORT, timeout=5).read().decode()
        out["metrics"] = {l.split()[0]: float(l.split()[1]) for l in metrics.splitlines()
                          if l.startswith("parley_media_") and len(l.split()) == 2}
    except Exception as e:
        out["metrics_error"] = repr(e)
    static.shutdown()

run(main)
"""#
}
