import Foundation

/// Runs the aiortc echo client (`EchoClientScript.source`) in the project venv as a child process
/// with bounded waits; output goes to temporary files so a chatty child can never block on a pipe.
struct PythonEchoClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let child: ChildProcess

    static var python: URL { Python.packageRoot.appendingPathComponent(".venv/bin/python3") }

    /// Starts the script; fails (never skips) when the venv or aiortc is missing.
    init(arguments: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            throw Failure(description: "Python venv missing: \(Self.python.path) not found. Create it with "
                          + "`python3 -m venv .venv && .venv/bin/pip install aiortc numpy` at the package root.")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-echo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("echo_client.py")
        try EchoClientScript.source.write(to: script, atomically: true, encoding: .utf8)
        child = try ChildProcess(executable: Self.python.path, arguments: [script.path] + arguments)
    }

    var process: Process { child.process }
    var isRunning: Bool { child.isRunning }
    var stdout: String { child.stdout }
    var stderr: String { child.stderr }

    /// Waits up to `timeout` for the script to exit; kills it (SIGTERM, then SIGKILL) otherwise.
    func wait(timeout: Duration) async -> Bool { await child.wait(timeout: timeout) }

    /// Stops the child by its PID (and only it).
    func kill() { child.kill() }

    /// The last stdout line that parses as a JSON object.
    func result() throws -> [String: Any] {
        for line in stdout.split(separator: "\n").reversed() {
            if let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                return object
            }
        }
        throw Failure(description: "aiortc client printed no JSON result (exit \(process.isRunning ? -1 : process.terminationStatus))\n"
                      + "stdout:\n\(stdout)\nstderr:\n\(stderr.suffix(4000))")
    }
}

/// The aiortc side: offers one sendrecv audio track carrying a 440 Hz tone to the WHIP-style
/// endpoint, records what comes back for a few seconds, measures it and prints one JSON line.
enum EchoClientScript {
    static let source = AiortcScriptPrelude.source(frequency: 440) + #"""
import urllib.request, urllib.error

def http(method, url, token, body=None):
    req = urllib.request.Request(url, data=body, method=method)
    req.add_header("Authorization", "Bearer " + token)
    if body is not None:
        req.add_header("Content-Type", "application/sdp")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()

def analyse(samples):
    out = {}
    if len(samples) < RATE:
        return out
    x = samples[RATE // 2:].astype(np.float64)  # skip the decoder's start
    x -= x.mean()
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    freqs = np.fft.rfftfreq(len(x), 1 / RATE)
    out["dominant_hz"] = float(freqs[int(np.argmax(spectrum))])
    out["rms"] = float(np.sqrt(np.mean(x * x)))
    # Normalised cross-correlation of one second received vs the sent tone at the best lag.
    seg = x[:RATE]
    ref = tone(0, 2 * RATE).astype(np.float64)
    n = len(seg) + len(ref)
    corr = np.fft.irfft(np.fft.rfft(ref, n) * np.conj(np.fft.rfft(seg, n)), n)[: len(ref) - len(seg) + 1]
    lag = int(np.argmax(corr))
    r = ref[lag: lag + len(seg)]
    out["xcorr"] = float(np.dot(seg, r) / (np.linalg.norm(seg) * np.linalg.norm(r) + 1e-9))
    return out

async def main(url, token, seconds):
    res = {"connected": False}
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.addTransceiver(Tone(), direction="sendrecv")
    frames, chunks = [], []
    t0 = time.perf_counter()
    connected = watch(pc, res, t0)
    record(pc, chunks, frames)

    await pc.setLocalDescription(await pc.createOffer())  # aiortc gathers fully here (no trickle)
    t_post = time.perf_counter()
    status, headers, body = await asyncio.get_running_loop().run_in_executor(
        None, http, "POST", url, token, pc.localDescription.sdp.encode())
    res["post_status"] = status
    res["location"] = headers.get("Location")
    res["content_type"] = headers.get("Content-Type")
    res["cors_origin"] = headers.get("Access-Control-Allow-Origin")
    res["expose"] = headers.get("Access-Control-Expose-Headers")
    if status != 201:
        res["error"] = body
        print(json.dumps(res)); await pc.close(); return
    res["answer_ice_lite"] = "a=ice-lite" in body
    await pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
    try:
        await asyncio.wait_for(connected.wait(), 10)
        res["connected"] = True
        res["offer_to_connected_ms"] = round((time.perf_counter() - t_post) * 1000, 1)
    except asyncio.TimeoutError:
        res["error"] = "not connected within 10 s"
    if res["connected"]:
        await asyncio.sleep(seconds)
    res["frames"] = len(frames)
    samples = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)
    res["samples"] = int(len(samples))
    res.update(analyse(samples))
    base = url.rsplit("/v1/", 1)[0]
    if res.get("location"):
        n_before = len(frames)
        res["delete_status"] = (await asyncio.get_running_loop().run_in_executor(
            None, http, "DELETE", base + res["location"], token))[0]
        await asyncio.sleep(1.0)
        res["frames_after_delete"] = len(frames) - n_before
        res["delete_again_status"] = (await asyncio.get_running_loop().run_in_executor(
            None, http, "DELETE", base + res["location"], token))[0]
    await pc.close()
    print(json.dumps(res), flush=True)

asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
"""#
}
