"""An HTTP/2 test server for Parley's HTTP2Client and APNsProvider tests, built on the `h2` library.

Listens on 127.0.0.1 (TLS with ALPN h2, or cleartext with --plain), prints {"port": N} on stdout,
and runs until stdin closes or 120 s pass. Routes:

  POST /3/device/<hex>   APNs emulation: checks the provider JWT (ES256, pyjwt) against --public-key,
                         records the request as a JSON line in --record, and answers 200 with an
                         apns-id; tokens ending in "dead" get 410 Unregistered, "0bad" 400
                         BadDeviceToken, a bad JWT 403 InvalidProviderToken.
  /echo                  answers 200 with the request body (flow control both ways).
  /delay?ms=N            answers after N ms (concurrency).
  /slow                  never answers (timeouts); counts RST_STREAM received.
  /ping                  sends PING first and answers once the client acknowledged it.
  /goaway                answers, then GOAWAY (last stream = this one) and closes.
  /goaway-before         once: GOAWAY naming an earlier last stream, without answering, and closes.
  /stats                 JSON: connections, max concurrent streams seen, resets, pings acked, ALPN.
"""
import argparse
import asyncio
import json
import ssl
import sys
import threading
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.settings
import jwt

STATS = {"connections": 0, "max_concurrent": 0, "resets": 0, "pings_acked": 0, "alpn": [], "goaway_before_done": False}


class Connection:
    def __init__(self, reader, writer, args):
        self.reader, self.writer, self.args = reader, writer, args
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.requests = {}        # stream id -> {"headers": dict, "body": bytearray}
        self.outgoing = {}        # stream id -> response bytes not yet sent
        self.active = set()
        self.ping_waiters = []
        self.closing = False

    async def run(self):
        STATS["connections"] += 1
        ssl_object = self.writer.get_extra_info("ssl_object")
        STATS["alpn"].append(ssl_object.selected_alpn_protocol() if ssl_object else None)
        # The limit goes in the first SETTINGS frame, as APNs does. (h2 applies a later
        # update_settings as soon as the client acknowledges the first frame.)
        self.conn.local_settings = h2.settings.Settings(client=False, initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.args.max_concurrent_streams,
            h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 65536})
        self.conn.initiate_connection()
        await self.flush()
        while not self.closing:
            data = await self.reader.read(65536)
            if not data:
                break
            for event in self.conn.receive_data(data):
                await self.handle(event)
            self.pump()
            await self.flush()
        self.writer.close()

    async def flush(self):
        out = self.conn.data_to_send()
        if out:
            self.writer.write(out)
            await self.writer.drain()

    async def handle(self, event):
        if isinstance(event, h2.events.RequestReceived):
            self.requests[event.stream_id] = {"headers": dict(event.headers), "body": bytearray()}
            self.active.add(event.stream_id)
            STATS["max_concurrent"] = max(STATS["max_concurrent"], len(self.active))
        elif isinstance(event, h2.events.DataReceived):
            self.requests[event.stream_id]["body"] += event.data
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            asyncio.ensure_future(self.respond(event.stream_id))
        elif isinstance(event, h2.events.StreamReset):
            STATS["resets"] += 1
            self.active.discard(event.stream_id)
            self.outgoing.pop(event.stream_id, None)
        elif isinstance(event, h2.events.PingAckReceived):
            STATS["pings_acked"] += 1
            waiters, self.ping_waiters = self.ping_waiters, []
            for waiter in waiters:
                waiter.set_result(True)

    def send(self, stream_id, status, body=b"", headers=()):
        self.conn.send_headers(stream_id, [(":status", str(status)), ("content-length", str(len(body)))] + list(headers))
        self.outgoing[stream_id] = bytes(body)
        self.pump()

    def pump(self):
        """Sends pending response bodies as far as the client's windows allow."""
        for stream_id in list(self.outgoing):
            data = self.outgoing[stream_id]
            while data:
                window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
                if window <= 0:
                    break
                chunk, data = data[:window], data[window:]
                self.conn.send_data(stream_id, chunk)
            if data:
                self.outgoing[stream_id] = data
            else:
                del self.outgoing[stream_id]
                self.conn.end_stream(stream_id)
                self.active.discard(stream_id)

    async def respond(self, stream_id):
        request = self.requests[stream_id]
        headers, body = request["headers"], bytes(request["body"])
        path = headers.get(":path", "")
        route = path.split("?")[0]
        if route.startswith("/3/device/"):
            self.apns(stream_id, headers, body, route[len("/3/device/"):])
        elif route == "/echo":
            self.send(stream_id, 200, body, [("x-received-length", str(len(body)))])
        elif route == "/delay":
            await asyncio.sleep(int(path.split("ms=")[1]) / 1000)
            self.send(stream_id, 200, b"delayed")
        elif route == "/slow":
            return
        elif route == "/ping":
            waiter = asyncio.get_event_loop().create_future()
            self.ping_waiters.append(waiter)
            self.conn.ping(b"parley01")
            await self.flush()
            await asyncio.wait_for(waiter, 5)
            self.send(stream_id, 200, b"pong-acked")
        elif route == "/goaway":
            self.send(stream_id, 200, b"bye")
            self.conn.close_connection(last_stream_id=stream_id)
            self.closing = True
        elif route == "/goaway-before" and not STATS["goaway_before_done"]:
            STATS["goaway_before_done"] = True
            self.conn.close_connection(last_stream_id=max(0, stream_id - 2))
            self.closing = True
        elif route == "/goaway-before":
            self.send(stream_id, 200, b"second connection")
        elif route == "/stats":
            self.send(stream_id, 200, json.dumps(STATS).encode(), [("content-type", "application/json")])
        else:
            self.send(stream_id, 404, b"")
        await self.flush()
        if self.closing:
            self.writer.close()

    def apns(self, stream_id, headers, body, device):
        record = {"method": headers.get(":method"), "path": headers.get(":path"), "scheme": headers.get(":scheme"),
                  "authority": headers.get(":authority"),
                  "headers": {k: v for k, v in headers.items() if not k.startswith(":") and k != "authorization"},
                  "body": json.loads(body) if body else None, "device": device}
        token = headers.get("authorization", "")
        try:
            assert token.startswith("bearer "), "no bearer token"
            jwt_header = jwt.get_unverified_header(token[7:])
            claims = jwt.decode(token[7:], self.args.public_key_pem, algorithms=["ES256"],
                                options={"require": ["iss", "iat"], "verify_iat": False})
            record.update(jwt_ok=True, jwt_header=jwt_header, jwt_claims=claims)
        except Exception as error:  # noqa: BLE001 — report any verification failure to the test
            record.update(jwt_ok=False, jwt_error=str(error))
        with open(self.args.record, "a") as f:
            f.write(json.dumps(record) + "\n")
        if not record["jwt_ok"]:
            self.send(stream_id, 403, json.dumps({"reason": "InvalidProviderToken"}).encode())
        elif device.endswith("dead"):
            self.send(stream_id, 410, json.dumps({"reason": "Unregistered", "timestamp": int(time.time() * 1000)}).encode())
        elif device.endswith("0bad"):
            self.send(stream_id, 400, json.dumps({"reason": "BadDeviceToken"}).encode())
        else:
            self.send(stream_id, 200, b"", [("apns-id", str(uuid.uuid4()).upper())])


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--plain", action="store_true")
    parser.add_argument("--public-key")
    parser.add_argument("--record", default="/dev/null")
    parser.add_argument("--max-concurrent-streams", type=int, default=100)
    args = parser.parse_args()
    args.public_key_pem = open(args.public_key).read() if args.public_key else None
    context = None
    if not args.plain:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        context.set_alpn_protocols(["h2"])
    server = await asyncio.start_server(lambda r, w: Connection(r, w, args).run(), "127.0.0.1", 0, ssl=context)
    print(json.dumps({"port": server.sockets[0].getsockname()[1]}), flush=True)
    stop = asyncio.get_event_loop().create_future()
    loop = asyncio.get_event_loop()
    threading.Thread(target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stop.set_result, None)),
                     daemon=True).start()
    try:
        await asyncio.wait_for(stop, 120)
    except asyncio.TimeoutError:
        pass
    server.close()


asyncio.run(main())
