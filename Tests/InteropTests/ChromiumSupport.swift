import Foundation
import ParleyCore
import ParleyTestSupport

/// Runs Chromium against the Parley echo endpoint inside a fresh network + PID namespace that has
/// only `lo`, so neither the browser nor the server can send a packet off the machine:
///
///     unshare --net --pid --fork --kill-child --mount-proc python3 orchestrate.py …
///
/// The orchestrator (PID 1 of the namespace, `ChromiumScripts.orchestrator`) brings `lo` up, starts
/// the built `parley-server` and mints a token with the built `parley`, serves the test page
/// (`ChromiumScripts.page`) from a second origin, runs headless Chromium with `--dump-dom`, and
/// prints one JSON line. The page holds its load event (an `<img>` on `/slow`, answered once the
/// page has posted its result) so `--dump-dom` sees the result. Killing `unshare` by its PID
/// SIGKILLs the namespace's PID 1, and the kernel then kills everything left in the namespace.
struct ChromiumEchoRun {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let process = Process()
    let directory: URL
    let stdoutURL: URL
    let stderrURL: URL

    /// A built product (`parley-server`, `parley`) beside the test bundle.
    static func builtExecutable(_ name: String) throws -> String { try BuiltProducts.path(name) }

    /// The first executable of `candidates`, or a failure naming what to install.
    static func system(_ candidates: [String], install: String) throws -> String {
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) { return path }
        throw Failure(description: "\(candidates[0]) not found (looked for \(candidates.joined(separator: ", "))): "
                      + "install it with `apt-get install -y --no-install-recommends \(install)` or run scripts/install-deps")
    }

    /// Chromium: `$PARLEY_CHROMIUM`, or Debian's `chromium`, or `chromium-browser`.
    static func chromium() throws -> String {
        var candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium"]
        if let explicit = ProcessInfo.processInfo.environment["PARLEY_CHROMIUM"] { candidates.insert(explicit, at: 0) }
        return try system(candidates, install: "chromium")
    }

    /// Writes the page and the orchestrator to a fresh temporary directory and starts the run.
    /// Fails (never skips) when Chromium, unshare, ip, python3 or the built executables are missing,
    /// or when the test is not root (a network namespace needs CAP_SYS_ADMIN).
    /// - Parameter video: the page offers its fake camera too (audio + video, BUNDLE).
    /// - Parameter red: the page puts RED (RFC 2198) first with `setCodecPreferences`, so Chromium
    ///   sends it; false removes it.
    init(statsMilliseconds: Int = 4000, video: Bool = false, red: Bool = true) throws {
        let chromium = try Self.chromium()
        let unshare = try Self.system(["/usr/bin/unshare", "/bin/unshare"], install: "util-linux")
        _ = try Self.system(["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"], install: "iproute2")
        let python = try Self.system(["/usr/bin/python3", "/usr/local/bin/python3"], install: "python3")
        let server = try Self.builtExecutable("parley-server")
        let cli = try Self.builtExecutable("parley")
        guard getuid() == 0 else {
            throw Failure(description: "ChromiumEchoInteropTests needs root to create a private network namespace (unshare --net)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("orchestrate.py")
        try ChromiumScripts.orchestrator.write(to: script, atomically: true, encoding: .utf8)
        try ChromiumScripts.page.write(to: directory.appendingPathComponent("page.html"), atomically: true, encoding: .utf8)
        stdoutURL = directory.appendingPathComponent("run.stdout")
        stderrURL = directory.appendingPathComponent("run.stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: unshare)
        process.arguments = ["--net", "--pid", "--fork", "--kill-child", "--mount-proc",
                             python, script.path, directory.path, server, cli, chromium, String(statsMilliseconds),
                             video ? "1" : "0", red ? "1" : "0"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        do {
            try process.runWithDefaultSignals()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Waits up to `timeout` for the run to end; kills it otherwise. True when it ended by itself.
    func wait(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        guard process.isRunning else { return true }
        kill()
        return false
    }

    /// Stops `unshare` by its PID with SIGKILL (with `--fork` it ignores SIGTERM and SIGINT while it
    /// waits); `--kill-child` then SIGKILLs the namespace's PID 1, and the kernel kills every other
    /// process in the PID namespace with it, so nothing (Chromium's helpers included) outlives the run.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        let reap = ContinuousClock.now + .seconds(3)
        while process.isRunning, ContinuousClock.now < reap { usleep(20_000) }
    }

    /// Kills whatever is left and removes the temporary directory (the namespace dies with its processes).
    func cleanUp() {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The orchestrator's JSON line.
    func report() throws -> [String: Any] {
        for line in stdout.split(separator: "\n").reversed() {
            if let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                return object
            }
        }
        throw Failure(description: "the Chromium run printed no JSON (exit \(process.isRunning ? -1 : process.terminationStatus))\n"
                      + "stdout:\n\(stdout.suffix(4000))\nstderr:\n\(stderr.suffix(4000))")
    }
}

enum ChromiumScripts {
    /// The page: fake-mic audio offer → POST /v1/echo (cross-origin, Bearer token) → connected →
    /// getStats() for a few seconds → DELETE → the result as JSON in `<pre id="result">` and POST /result.
    static let page = #"""
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

    /// PID 1 of the namespace; arguments: work dir, parley-server, parley, chromium, stats ms.
    static let orchestrator = #"""
# Runs as PID 1 of a fresh network + PID namespace (unshare --net --pid --fork --kill-child):
# brings up lo, starts parley-server, mints a token, serves the page from a second origin and
# runs headless Chromium on it with --dump-dom. Prints one JSON line. Every wait is bounded; every
# child is stopped by its PID in `finally` (and the kernel kills what is left when PID 1 exits).
import html, http.server, json, os, re, signal, socket, subprocess, sys, threading, time

work, server_bin, cli_bin, chromium, stats_ms = sys.argv[1:6]
video = sys.argv[6] if len(sys.argv) > 6 else "0"
red = sys.argv[7] if len(sys.argv) > 7 else "1"
HTTP_PORT, MEDIA_PORT, STATIC_PORT = 18080, 18443, 18000
HOLD_S, CHROMIUM_S = 30, 38
out = {"interfaces": [], "started": time.time()}
children = []
result_posted = threading.Event()

def on_term(*_):
    raise SystemExit(143)
signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_term)

def tail(path, n=3000):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-n:]
    except OSError:
        return ""

def spawn(args, name):
    so, se = open(os.path.join(work, name + ".out"), "w"), open(os.path.join(work, name + ".err"), "w")
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=so, stderr=se, cwd=work)
    children.append(p)
    return p

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
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True, timeout=5)
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, timeout=5).stdout
    out["interfaces"] = [l.split(":")[1].strip().split("@")[0] for l in links.splitlines() if ":" in l]
    if out["interfaces"] != ["lo"]:
        out["error"] = "namespace has interfaces other than lo: %s" % out["interfaces"]
        return

    server = spawn([server_bin, "--http", "127.0.0.1:%d" % HTTP_PORT, "--media", "127.0.0.1:%d" % MEDIA_PORT,
                    "--db", os.path.join(work, "db"), "--recordings", os.path.join(work, "recordings"),
                    "--log-level", "warning"], "server")
    deadline = time.time() + 10
    while "listening" not in tail(os.path.join(work, "server.out")):
        if server.poll() is not None or time.time() > deadline:
            out["error"] = "parley-server did not start (exit %s): %s" % (server.poll(), tail(os.path.join(work, "server.err")))
            return
        time.sleep(0.05)
    out["server_line"] = tail(os.path.join(work, "server.out")).strip()

    tok = subprocess.run([cli_bin, "token", "voice", "--identity", "chromium_test", "--incoming", "--db", os.path.join(work, "db")],
                         capture_output=True, text=True, timeout=10)
    token = tok.stdout.strip()
    if tok.returncode != 0 or token.count(".") != 2:
        out["error"] = "parley token failed (%d): %s %s" % (tok.returncode, tok.stdout, tok.stderr)
        return

    static = http.server.ThreadingHTTPServer(("127.0.0.1", STATIC_PORT), Handler)
    static.daemon_threads = True
    threading.Thread(target=static.serve_forever, daemon=True).start()

    from urllib.parse import urlencode
    echo = "http://127.0.0.1:%d/v1/echo" % HTTP_PORT
    page = "http://127.0.0.1:%d/page.html?%s" % (STATIC_PORT, urlencode({"echo": echo, "token": token, "stats_ms": stats_ms, "video": video, "red": red}))
    profile = os.path.join(work, "profile")
    args = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
            "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
            "--autoplay-policy=no-user-gesture-required",
            "--disable-background-networking", "--disable-component-update", "--no-first-run",
            "--no-default-browser-check", "--disable-sync", "--disable-default-apps", "--disable-extensions",
            "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--dump-dom", page]
    t0 = time.time()
    browser = spawn(args, "chromium")
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
    import urllib.request
    try:
        metrics = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % HTTP_PORT, timeout=5).read().decode()
        out["metrics"] = {l.split()[0]: float(l.split()[1]) for l in metrics.splitlines()
                          if l.startswith("parley_media_") and len(l.split()) == 2}
    except Exception as e:
        out["metrics_error"] = repr(e)
    static.shutdown()

try:
    main()
except SystemExit:
    out["error"] = out.get("error") or "terminated"
except Exception as e:
    out["error"] = "orchestrator: %r" % e
finally:
    for p in reversed(children):  # stop each child by its PID: TERM, then KILL
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(3)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(2)
    print(json.dumps(out), flush=True)
"""#
}
