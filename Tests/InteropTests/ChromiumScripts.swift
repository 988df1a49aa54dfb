/// The Python orchestrators `ChromiumRun` starts as PID 1 of a private namespace: this prelude,
/// then a run's own part (`echo`, `room`), which defines `main()` and ends with `run(main)`.
enum ChromiumScripts {
    /// Arguments: work dir, parley-server, parley, chromium, then the run's own (`ARGS`).
    /// Helpers: `tail`, `spawn` (every child stopped by its PID at the end), `bring_up_lo`,
    /// `start_server`, `wait_listening`, `cli`, `mint`, `chromium_args`, and `run(main)`, which prints `out` as one
    /// JSON line whatever happens. Every wait is bounded; the kernel kills what is left when PID 1 exits.
    static let prelude = #"""
import html, http.server, json, os, re, signal, socket, subprocess, sys, threading, time, urllib.request

work, server_bin, cli_bin, chromium = sys.argv[1:5]
ARGS = sys.argv[5:]
out = {"interfaces": [], "started": time.time()}
children = []

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

def spawn(args, name, **kw):
    so, se = open(os.path.join(work, name + ".out"), "w"), open(os.path.join(work, name + ".err"), "w")
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=so, stderr=se, cwd=work, **kw)
    children.append(p)
    return p

def bring_up_lo():
    """True when the namespace has only lo (now up); otherwise sets out["error"]."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True, timeout=5)
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, timeout=5).stdout
    out["interfaces"] = [l.split(":")[1].strip().split("@")[0] for l in links.splitlines() if ":" in l]
    if out["interfaces"] != ["lo"]:
        out["error"] = "namespace has interfaces other than lo: %s" % out["interfaces"]
        return False
    return True

def start_server(http_port, media_port, extra=()):
    """parley-server on loopback (with the flags in EXTRA), once it logs "listening"; None (and out["error"]) otherwise."""
    server = spawn([server_bin, "--http", "127.0.0.1:%d" % http_port, "--media", "127.0.0.1:%d" % media_port,
                    "--db", os.path.join(work, "db"), "--recordings", os.path.join(work, "recordings"),
                    "--log-level", os.environ.get("PARLEY_CHROMIUM_SERVER_LOG", "warning")] + list(extra), "server")
    if not wait_listening(server, "server"):
        return None
    out["server_line"] = tail(os.path.join(work, "server.out")).strip()
    return server

def wait_listening(proc, name, seconds=10):
    """Polls NAME.out until it says "listening"; False (and out["error"]) when PROC exits or time is up."""
    deadline = time.time() + seconds
    while "listening" not in tail(os.path.join(work, name + ".out")):
        if proc.poll() is not None or time.time() > deadline:
            out["error"] = "%s did not start (exit %s): %s" % (name, proc.poll(), tail(os.path.join(work, name + ".err")))
            return False
        time.sleep(0.05)
    return True

def cli(*args):
    """`parley ARGS --db work/db`'s stdout; raises with its output when it fails."""
    r = subprocess.run([cli_bin] + list(args) + ["--db", os.path.join(work, "db")], capture_output=True, text=True, timeout=10)
    if r.returncode != 0:
        raise RuntimeError("parley %s failed (%d): %s %s" % (" ".join(args[:2]), r.returncode, r.stdout, r.stderr))
    return r.stdout.strip()

def mint(kind, identity, *extra):
    token = cli("token", kind, "--identity", identity, *extra)
    if token.count(".") != 2:
        raise RuntimeError("parley token %s printed no JWT: %r" % (kind, token[:200]))
    return token

def chromium_args(profile, *extra):
    return [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
            "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
            "--autoplay-policy=no-user-gesture-required",
            "--disable-background-networking", "--disable-component-update", "--no-first-run",
            "--no-default-browser-check", "--disable-sync", "--disable-default-apps", "--disable-extensions",
            "--disable-dev-shm-usage", "--user-data-dir=" + profile] + list(extra)

def run(main):
    try:
        main()
    except SystemExit:
        out["error"] = out.get("error") or "terminated"
    except Exception as e:
        out["error"] = out.get("error") or "orchestrator: %r" % e
    finally:
        for p in reversed(children):  # stop each child by its PID: TERM, then KILL
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(3)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(2)
        out["server_stderr"] = out.get("server_stderr") or tail(os.path.join(work, "server.err"), 3000)
        print(json.dumps(out), flush=True)

"""#
}
