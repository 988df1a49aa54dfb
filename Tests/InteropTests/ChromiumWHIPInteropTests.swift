import Foundation
import ParleyTestSupport
import Testing

/// A browser as a WHIP publisher and another as a WHEP viewer (RFC 9725), with nothing of
/// Parley's in the pages: plain `RTCPeerConnection`, `fetch` with a Bearer token, from a blank
/// page of another origin (a port of the orchestrator's own), so CORS, the `Location` header and
/// `DELETE` go through what a WHIP client on another site gets. `cam` publishes Chromium's fake camera and microphone into the
/// room `stage`; `viewer` subscribes to the room's default (the mixed audio and the dominant
/// speaker's video) and must decode the camera and receive audio; both end with `DELETE`.
@Suite(.serialized, .tags(.interop)) struct ChromiumWHIPInteropTests {
    @Test(.timeLimit(.minutes(2))) func aBrowserPublishesOverWHIPAndAnotherWatchesOverWHEP() async throws {
        let run = try ChromiumRun(orchestrator: ChromiumScripts.browser + Self.orchestrator, arguments: [])
        defer { run.cleanUp() }
        let ended = await run.wait(timeout: .seconds(90))
        #expect(ended, "the Chromium WHIP run did not finish within 90 s; it was killed")
        let report = try run.report()
        let diagnostics = "console: \(report["console"] ?? "-")\nChromium: \(report["chromium_stderr"] ?? "-")\nserver: \(report["server_stderr"] ?? "-")"
        #expect(report["interfaces"] as? [String] == ["lo"], "namespace interfaces: \(report["interfaces"] ?? "-")")
        #expect(report["error"] == nil, "orchestrator: \(report["error"] ?? "-")\n\(diagnostics)")

        let publish = report["publish"] as? [String: Any] ?? [:]
        let view = report["view"] as? [String: Any] ?? [:]
        #expect(publish["status"] as? Int == 201 && (publish["location"] as? String)?.isEmpty == false,
                "WHIP POST from the page: \(publish)\n\(diagnostics)")
        #expect(view["status"] as? Int == 201 && (view["location"] as? String)?.isEmpty == false, "WHEP POST from the page: \(view)")

        let rows = report["stats"] as? [[String: Any]] ?? []
        let video = rows.first { $0["kind"] as? String == "video" } ?? [:]
        let audio = rows.first { $0["kind"] as? String == "audio" } ?? [:]
        print("chromium WHIP → WHEP: publish \(publish), view \(view), first frame after \(report["first_frame_ms"] ?? "-") ms, "
              + "video \(video), audio \(audio), delete \(report["delete"] ?? "-")")
        #expect(ChromiumRun.number(video["framesDecoded"]) > 30, "the viewer decoded too few frames: \(rows)")
        #expect(ChromiumRun.number(video["frameWidth"]) > 0, "\(video)")
        #expect(ChromiumRun.number(audio["packetsReceived"]) > 50, "the viewer got too little audio: \(rows)")
        // Chromium's fake microphone beeps: the room's mix must carry it.
        #expect(ChromiumRun.number(audio["totalAudioEnergy"]) > 0, "the viewer's audio is silent: \(audio)")
        let deletes = report["delete"] as? [String: Any] ?? [:]
        #expect(deletes["cam"] as? Int == 200 && deletes["viewer"] as? Int == 200, "DELETE of each Location: \(deletes)")
    }

    static let orchestrator = #"""
HTTP_PORT, MEDIA_PORT, SITE_PORT, ROOM = 18590, 18591, 18592, "stage"
BASE = "http://127.0.0.1:%d" % HTTP_PORT

class BlankPage(http.server.BaseHTTPRequestHandler):
    """Another origin's page (loopback is a secure context, so getUserMedia works there)."""
    def do_GET(self):
        body = b"<!doctype html><title>another site</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass

POST = """(async (url, token, publish) => {
  const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle'});
  if (publish) {
    const stream = await navigator.mediaDevices.getUserMedia({audio: true, video: {width: 640, height: 360}});
    for (const track of stream.getTracks()) pc.addTransceiver(track, {direction: 'sendonly'});
  } else {
    pc.addTransceiver('audio', {direction: 'recvonly'});
    pc.addTransceiver('video', {direction: 'recvonly'});
    pc.ontrack = event => {   // played, so the audio's energy is measured
      const element = document.createElement(event.track.kind);
      element.srcObject = new MediaStream([event.track]);
      element.muted = false;
      document.body.appendChild(element);
      element.play().catch(() => {});
    };
  }
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise(done => {   // WHIP without trickle: every candidate in the offer
    if (pc.iceGatheringState === 'complete') return done();
    pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && done());
    setTimeout(done, 3000);
  });
  const response = await fetch(url, {method: 'POST', body: pc.localDescription.sdp,
                                     headers: {'Content-Type': 'application/sdp', 'Authorization': 'Bearer ' + token}});
  const body = await response.text();
  const result = {status: response.status, location: response.headers.get('Location'), type: response.headers.get('Content-Type')};
  window.session = {pc, token, location: result.location ? new URL(result.location, url).href : null, started: performance.now()};
  if (response.status !== 201) { result.body = body.slice(0, 300); return JSON.stringify(result); }
  await pc.setRemoteDescription({type: 'answer', sdp: body});
  return JSON.stringify(result);
})"""

STATS = """(async () => {
  const rows = [];
  (await window.session.pc.getStats()).forEach(r => {
    if (r.type === 'inbound-rtp') rows.push({kind: r.kind, packetsReceived: r.packetsReceived, framesDecoded: r.framesDecoded,
                                             frameWidth: r.frameWidth, frameHeight: r.frameHeight, totalAudioEnergy: r.totalAudioEnergy});
  });
  return JSON.stringify({rows, ms: performance.now() - window.session.started});
})()"""

DELETE = """(async () => {
  const s = window.session;
  const response = await fetch(s.location, {method: 'DELETE', headers: {'Authorization': 'Bearer ' + s.token}});
  s.pc.close();
  return response.status;
})()"""

def main():
    if not bring_up_lo() or not start_server(HTTP_PORT, MEDIA_PORT):
        return
    tokens = {who: mint("video", who, "--room", ROOM) for who in ("cam", "viewer")}
    site = http.server.ThreadingHTTPServer(("127.0.0.1", SITE_PORT), BlankPage)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    browsers = {}
    try:
        for who in ("cam", "viewer"):
            browsers[who] = Browser(who)
            browsers[who].call("Page.navigate", {"url": "http://127.0.0.1:%d/" % SITE_PORT}, session=True)
            deadline = time.time() + 10
            while browsers[who].evaluate("document.readyState") != "complete" or browsers[who].evaluate("location.port") != str(SITE_PORT):
                if time.time() > deadline:
                    raise RuntimeError("%s: the blank page did not load" % who)
                time.sleep(0.05)
        url = lambda kind: "%s/v1/rooms/%s/%s" % (BASE, ROOM, kind)
        out["publish"] = json.loads(browsers["cam"].evaluate("%s(%s, %s, true)" % (POST, json.dumps(url("whip")), json.dumps(tokens["cam"])), timeout=20))
        out["view"] = json.loads(browsers["viewer"].evaluate("%s(%s, %s, false)" % (POST, json.dumps(url("whep")), json.dumps(tokens["viewer"])), timeout=20))
        deadline = time.time() + 30
        while time.time() < deadline:
            stats = json.loads(browsers["viewer"].evaluate(STATS))
            out["stats"] = stats["rows"]
            video = [r for r in stats["rows"] if r["kind"] == "video"]
            if video and (video[0].get("framesDecoded") or 0) > 0 and "first_frame_ms" not in out:
                out["first_frame_ms"] = round(stats["ms"])
            audio = [r for r in stats["rows"] if r["kind"] == "audio"]
            if video and (video[0].get("framesDecoded") or 0) > 60 and audio and (audio[0].get("packetsReceived") or 0) > 100:
                break
            time.sleep(0.25)
        out["delete"] = {who: browsers[who].evaluate(DELETE) for who in ("viewer", "cam")}
    finally:
        out["console"] = {who: b.console[-10:] for who, b in browsers.items()}
        out["chromium_stderr"] = {who: tail(os.path.join(work, "chromium-%s.err" % who), 1500) for who in ("cam", "viewer")}
        for b in browsers.values():
            b.close()
        site.shutdown()

run(main)
"""#
}
