import Foundation

/// A SIP-over-WebSocket client in Python (`websockets` from the project's `.venv`), shaped like
/// JsSIP/SIP.js (RFC 7118): `.invalid` Via and Contact hosts, `transport=ws`, no Content-Length
/// on bodiless requests. Its configuration is the JSON in `argv[1]`; it prints one JSON object a
/// line, flushed, for the test to poll:
/// 1. `refused`: an upgrade without the `sip` subprotocol, its HTTP status;
/// 2. `oversized`: the close code after a 70 KB message;
/// 3. `subprotocol`, `challenge`, `registered`: REGISTER, its 401, REGISTER with an MD5 digest
///    computed here (qop=auth), its 200 and Contact;
/// 4. `garbage`, `invalid`, `options`: what came back for bytes that are not SIP, a request whose
///    CSeq names another method, then an OPTIONS on the same socket;
/// 5. `ready`, then `invite` (its Via and Request-URI) when the server calls the binding: 180,
///    200 with a PCMU offer on a UDP socket that echoes every RTP packet, and the server's ACK;
/// 6. `bye` with the number of packets echoed, answered 200; then it exits.
/// With a `wss:` URL it checks the server's certificate against `cafile` and its Via says `WSS`.
/// With `close_after_register` (seconds) it closes its socket that long after step 3.
enum SIPWebSocketClientScript {
    /// Runs the client (the project's `.venv` Python) with `settings` as its configuration; the caller kills it.
    static func start(_ settings: [String: Any]) throws -> ChildProcess {
        let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
        return try ChildProcess(executable: python, arguments: [
            "-u", "-c", source, String(decoding: try JSONSerialization.data(withJSONObject: settings), as: UTF8.self),
        ])
    }

    static let source = #"""
import asyncio, hashlib, json, os, re, socket, ssl, sys, uuid
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

cfg = json.loads(sys.argv[1])
URL, USER, PASSWORD, DOMAIN = cfg["url"], cfg["user"], cfg["password"], cfg["domain"]
HOST = uuid.uuid4().hex[:12] + ".invalid"
# wss: the server's certificate is checked against the test's own (cfg["cafile"]); Via says WSS.
SSL = ssl.create_default_context(cafile=cfg["cafile"]) if URL.startswith("wss:") else None
TRANSPORT = "WSS" if SSL else "WS"

def say(**kv):
    print(json.dumps(kv), flush=True)

def header(msg, name):
    m = re.search(r"^" + name + r":\s*(.*)$", msg, re.M | re.I)
    return m.group(1).strip() if m else None

def status(msg):
    return int(msg.split(" ", 2)[1]) if msg.startswith("SIP/2.0 ") else None

def request(method, uri, cseq, call_id, from_tag, extra=(), body=""):
    lines = [f"{method} {uri} SIP/2.0",
             f"Via: SIP/2.0/{TRANSPORT} {HOST};branch=z9hG4bK{uuid.uuid4().hex[:16]}",
             "Max-Forwards: 70",
             f"To: <sip:{USER}@{DOMAIN}>",
             f"From: <sip:{USER}@{DOMAIN}>;tag={from_tag}",
             f"Call-ID: {call_id}",
             f"CSeq: {cseq} {method}", *extra]
    if body:
        lines += ["Content-Type: application/sdp", f"Content-Length: {len(body.encode())}"]
    return "\r\n".join(lines) + "\r\n\r\n" + body

def reply(req, code, reason, to_tag, extra=(), body=""):
    heads = [f"SIP/2.0 {code} {reason}"]
    for line in req.split("\r\n\r\n", 1)[0].split("\r\n")[1:]:
        name = line.split(":", 1)[0].strip().lower()
        if name in ("via", "from", "call-id", "cseq"):
            heads.append(line)
        elif name == "to":
            heads.append(line if ";tag=" in line else line + f";tag={to_tag}")
    heads += list(extra)
    heads.append(f"Content-Length: {len(body.encode())}")
    if body:
        heads.insert(-1, "Content-Type: application/sdp")
    return "\r\n".join(heads) + "\r\n\r\n" + body

def digest(challenge, method, uri):
    fields = dict(re.findall(r'(\w+)="?([^",]*)"?', challenge))
    ha1 = hashlib.md5(f"{USER}:{fields['realm']}:{PASSWORD}".encode()).hexdigest()
    ha2 = hashlib.md5(f"{method}:{uri}".encode()).hexdigest()
    cnonce, nc = uuid.uuid4().hex[:16], "00000001"
    response = hashlib.md5(f"{ha1}:{fields['nonce']}:{nc}:{cnonce}:auth:{ha2}".encode()).hexdigest()
    value = (f'Digest username="{USER}", realm="{fields["realm"]}", nonce="{fields["nonce"]}", uri="{uri}", '
             f'response="{response}", algorithm=MD5, qop=auth, nc={nc}, cnonce="{cnonce}"')
    return value + (f', opaque="{fields["opaque"]}"' if "opaque" in fields else "")

class Echo(asyncio.DatagramProtocol):
    def __init__(self):
        self.count = 0
    def connection_made(self, transport):
        self.transport = transport
    def datagram_received(self, data, addr):
        self.count += 1
        self.transport.sendto(data, addr)

async def main():
    try:
        async with connect(URL, open_timeout=10, ssl=SSL):
            say(refused=101)
    except InvalidStatus as e:
        say(refused=e.response.status_code)

    async with connect(URL, subprotocols=["sip"], open_timeout=10, ssl=SSL) as ws:
        await ws.send("OPTIONS sip:x SIP/2.0\r\nX-Pad: " + "a" * 70000 + "\r\n\r\n")
        try:
            await asyncio.wait_for(ws.recv(), 10)
            say(oversized=0)
        except ConnectionClosed as e:
            say(oversized=e.rcvd.code if e.rcvd else 1006)

    async with connect(URL, subprotocols=["sip"], open_timeout=10, ssl=SSL) as ws:
        say(subprotocol=ws.subprotocol)
        call_id, tag, uri = uuid.uuid4().hex, uuid.uuid4().hex[:8], f"sip:{DOMAIN}"
        contact = (f'Contact: <sip:{USER}@{HOST};transport=ws>;+sip.ice;reg-id=1;'
                   f'+sip.instance="<urn:uuid:{uuid.uuid4()}>";expires=600')
        await ws.send(request("REGISTER", uri, 1, call_id, tag, [contact]))
        first = await asyncio.wait_for(ws.recv(), 10)
        challenge = header(first, "WWW-Authenticate") or ""
        say(challenge=status(first))
        await ws.send(request("REGISTER", uri, 2, call_id, tag, [contact, "Authorization: " + digest(challenge, "REGISTER", uri)]))
        ok = await asyncio.wait_for(ws.recv(), 10)
        say(registered=status(ok), contact=header(ok, "Contact"))
        if "close_after_register" in cfg:
            await asyncio.sleep(cfg["close_after_register"])
            return

        await ws.send("this is not a SIP message")
        await ws.send(request("OPTIONS", uri, 3, call_id, tag).replace("CSeq: 3 OPTIONS", "CSeq: 3 INVITE"))
        invalid = await asyncio.wait_for(ws.recv(), 10)
        await ws.send(request("OPTIONS", uri, 4, call_id, tag))
        options = await asyncio.wait_for(ws.recv(), 10)
        say(garbage="nothing", invalid=status(invalid), options=status(options))

        loop = asyncio.get_running_loop()
        rtp, echo = await loop.create_datagram_endpoint(Echo, local_addr=("127.0.0.1", 0))
        port = rtp.get_extra_info("sockname")[1]
        say(ready=True)
        to_tag = uuid.uuid4().hex[:8]
        while True:
            msg = await asyncio.wait_for(ws.recv(), 60)
            if isinstance(msg, bytes):
                msg = msg.decode()
            method = msg.split(" ", 1)[0]
            if method == "INVITE":
                say(invite=msg.split("\r\n", 1)[0], via=header(msg, "Via"), invite_contact=header(msg, "Contact"))
                sdp = (f"v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
                       f"m=audio {port} RTP/AVP 0 101\r\na=rtpmap:0 PCMU/8000\r\n"
                       f"a=rtpmap:101 telephone-event/8000\r\na=fmtp:101 0-16\r\na=sendrecv\r\n")
                me = f"Contact: <sip:{USER}@{HOST};transport=ws>"
                await ws.send(reply(msg, 180, "Ringing", to_tag, [me]))
                await ws.send(reply(msg, 200, "OK", to_tag, [me], sdp))
            elif method == "ACK":
                say(ack=True)
            elif method == "BYE":
                await ws.send(reply(msg, 200, "OK", to_tag))
                say(bye=True, echoed=echo.count)
                break
            elif not msg.startswith("SIP/2.0"):
                await ws.send(reply(msg, 200, "OK", to_tag))
        rtp.close()

asyncio.run(main())
"""#
}
