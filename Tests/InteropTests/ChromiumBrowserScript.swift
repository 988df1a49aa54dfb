extension ChromiumScripts {
    /// `Browser`: one headless Chromium with one page, driven over the DevTools protocol on a pipe
    /// (`--remote-debugging-pipe`: fd 3 in, fd 4 out, NUL-separated JSON): `call`, `evaluate`,
    /// the page's `window.parleyRoom` `state()` and `stats()`, its console; and `settled(state)`.
    /// For orchestrators after the prelude (the room runs).
    static let browser = #"""
class Browser:
    """One headless Chromium, one page, over the DevTools protocol on a pipe."""
    def __init__(self, name):
        self.name, self.next_id, self.replies, self.console = name, 0, {}, []
        self.cond = threading.Condition()
        cmd_r, self.cmd_w = os.pipe()
        self.ev_r, ev_w = os.pipe()
        args = chromium_args(os.path.join(work, "profile-" + name), "--remote-debugging-pipe", "about:blank")
        # The shell puts the pipe ends on fds 3 and 4, where Chromium expects them, and execs it (same PID).
        # bash, not sh: dash refuses a source fd above 9 ("Bad fd number") once the orchestrator has more open.
        self.proc = spawn(["/bin/bash", "-c", 'exec "$0" "$@" 3<&%d 4>&%d' % (cmd_r, ev_w)] + args,
                          "chromium-" + name, pass_fds=(cmd_r, ev_w))
        os.close(cmd_r)
        os.close(ev_w)
        threading.Thread(target=self.read, daemon=True).start()
        target = None
        deadline = time.time() + 15
        while target is None:
            pages = [t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page"]
            target = pages[0]["targetId"] if pages else None
            if target is None:
                if time.time() > deadline:
                    raise RuntimeError("%s: Chromium opened no page" % name)
                time.sleep(0.1)
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Runtime.enable", session=True)
        self.call("Page.enable", session=True)

    def read(self):
        buf = b""
        while True:
            chunk = os.read(self.ev_r, 65536)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                with self.cond:
                    if "id" in msg:
                        self.replies[msg["id"]] = msg
                        self.cond.notify_all()
                    elif msg.get("method") == "Runtime.consoleAPICalled":
                        a = msg["params"].get("args", [])
                        self.console.append(" ".join(str(x.get("value", x.get("description", ""))) for x in a)[:500])
                    elif msg.get("method") == "Runtime.exceptionThrown":
                        d = msg["params"]["exceptionDetails"]
                        self.console.append("exception: " + str(d.get("exception", {}).get("description", d.get("text")))[:500])
                    del self.console[:-40]

    def call(self, method, params=None, session=False, timeout=10):
        with self.cond:
            self.next_id += 1
            i = self.next_id
        msg = {"id": i, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        with self.cond:
            if not self.cond.wait_for(lambda: i in self.replies, timeout):
                raise RuntimeError("%s: %s got no reply within %s s" % (self.name, method, timeout))
            reply = self.replies.pop(i)
        if "error" in reply:
            raise RuntimeError("%s: %s: %s" % (self.name, method, reply["error"]))
        return reply["result"]

    def evaluate(self, expression, timeout=10):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                      session=True, timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s threw %s" % (self.name, expression, r["exceptionDetails"].get("text")))
        return r["result"].get("value")

    def state(self):
        return json.loads(self.evaluate("JSON.stringify(window.parleyRoom || null)") or "null")

    def stats(self):
        return self.evaluate("window.parleyRoom ? window.parleyRoom.stats() : []")

    def close(self):
        try:
            self.call("Browser.close", timeout=3)
            self.proc.wait(5)
        except Exception:
            pass

def settled(state):
    return state is not None and state.get("phase") in ("joined", "failed", "disconnected", "left")

"""#
}
