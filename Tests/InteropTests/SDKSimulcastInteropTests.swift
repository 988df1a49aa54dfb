import AccessToken
import ParleyCore
import Foundation
import ParleyServer
import ParleyTestSupport
import ParleyVideo
import Synchronization
import Testing
import VideoCore
import WebRTC

/// Simulcast from the SDK, on a real in-process `parley-server`: alice, an SDK participant,
/// publishes a moving 640×360 test pattern with grain (a camera's noise, so each layer's encoder
/// spends its budget as with a real camera) and `preferredVideoCodecs = [.vp8(simulcast: true)]`:
/// three VP8 layers q, h, f at the encoders' standard 150:500:1500 split of what the server lets a
/// publisher send (`roomPublishKbps`, here `publishKbps`: about 65, 220 and 660 kbit/s, the rates
/// libwebrtc gives 160×90, 320×180 and 640×360). bob receives it through `parley netsim`, whose
/// rate limit (`kbps`, between f's rate and h's) starts at `limitAt` and lifts at `liftAt` (seconds
/// from the relay's start), with a 10-packet queue (a quarter second at the limit): a path that
/// carries h but not f. bob is another SDK participant or, as in `ChromiumSimulcastInteropTests`,
/// aiortc. The SFU must forward bob the full layer before the limit, less of it under the limit
/// (on his loss reports, and aiortc's falling estimate), and the full layer again after it lifts
/// — read from the server's per-layer counters on `/metrics` (sampled each second) — and bob's
/// decoder must show it: frames at 640×360, then at a smaller layer's size, then at 640×360
/// again. The time from the limit to bob's first smaller frame, and from the lift to his first
/// full-size frame again (the one he stays at: the SFU probes up a step after 3–12 s of clean
/// reports, `SubscriberBudget`, and a probe under the limit falls back), are the layer switch times
/// (printed per run, with p50 and range over the runs of the process).
///
/// For aiortc those times are read from the key frames as they arrive (before its jitter buffer,
/// as `ChromiumSimulcastInteropTests` does): aiortc's video jitter buffer gives up a packet lost
/// for good (its retransmission dropped too, in the relay's full queue) only once 512 newer came —
/// some 20 s of h — so its decoded sizes lag the switches by that much; they must still show a
/// smaller layer, then the full one again to the end.
///
/// The SDK bob's media goes through the relay because the signaling he talks to is a WebSocket
/// proxy (`proxy.py`, the project venv's `websockets`) that rewrites the port of the host candidate
/// in the server's answers (`room.joined`, `room.answer`) to the relay's, as the aiortc subscriber
/// does to its own answer; nothing else changes. alice talks to the server directly, so her
/// upstream is not limited. The SDK bob repairs what the relay's full queue drops with NACK and
/// its reorder buffer (`RemoteVideoTrack`), so a switch's key frame that lost a packet still shows.
@Suite(.serialized, .tags(.interop)) struct SDKSimulcastInteropTests {
    static let (limitAt, liftAt, endAt, kbps, publishKbps) = (10.0, 22.0, 44.0, 400, 1_000)

    /// Who bob is: an SDK participant (through the signaling proxy), or aiortc (`ChromiumScripts.simulcastSubscriber`,
    /// which rewrites its answer itself and sends REMB).
    enum Subscriber: String, CaseIterable, Sendable { case sdk, aiortc }

    @Test(.timeLimit(.minutes(2)), arguments: Subscriber.allCases)
    func aSubscriberOfAnSDKPublisherBehindALimitIsMovedDownALayerAndBackUp(_ subscriber: Subscriber) async throws {
        // PARLEY_SIMULCAST_LOG=1: the media path's debug log (budgets, probes, switches, estimates) on stderr.
        if ProcessInfo.processInfo.environment["PARLEY_SIMULCAST_LOG"] != nil { Log.setLevel(.debug, for: .webrtc) }
        try await InProcessPlatform.withServer(configure: { $0.roomPublishKbps = Self.publishKbps }) { platform in
            let edge = platform.sdkEdge
            let camera = PacedVideoSource(TestPattern(width: 640, height: 360, framesPerSecond: 30, grain: 12))
            let alice = try SDKPeer.join(edge: edge, server: platform.server, identity: "alice", room: "simulcast",
                                         video: camera, simulcast: true)
            defer { alice.disconnect() }
            let connected = await SDKPeer.poll(timeout: .seconds(15)) { alice.connectMilliseconds != nil }
            try #require(connected, "alice did not connect: \(String(describing: alice.times.withLock { $0.failure }))")

            // The relay in front of the server's media socket, and the signaling proxy that sends bob there.
            let mediaPort = platform.server.media.localPort
            let netsim = try ChildProcess(executable: try BuiltProducts.path("parley"), arguments: [
                "netsim", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:\(mediaPort)", "--queue", "10",
                "--rate-at", "\(Self.limitAt):\(Self.kbps)", "--rate-at", "\(Self.liftAt):0",
            ])
            defer { netsim.kill() }
            let relaying = await netsim.waitForOutput("relaying", timeout: .seconds(10))
            let started = Date().timeIntervalSince1970
            let relayPort = try #require(relaying ? Self.relayPort(netsim.stdout) : nil, "netsim: \(netsim.stdout) \(netsim.stderr)")
            let proxy = try Self.startProxy(platform, mediaPort: mediaPort, relayPort: relayPort)
            defer { proxy.kill() }
            let proxyPort = try #require(await proxy.waitForJSON(key: "listening", timeout: .seconds(15))?["listening"] as? Int,
                                         "proxy: \(proxy.stderr.suffix(2000))")
            let full = "640x360"
            let seen: SDKPeer.Screen.Seen
            let changes: [(Double, String)]
            // When bob's layer changed: his decoded sizes (SDK), or the sizes of the key frames as
            // they arrive (aiortc, before its jitter buffer: see the type's comment).
            var timeline: [(Double, String)] = []
            switch subscriber {
            case .sdk:
                Video.servers["netsim-\(proxyPort)"] = "http://127.0.0.1:\(proxyPort)"
                let bob = try SDKPeer.join(edge: "netsim-\(proxyPort)", server: platform.server, identity: "bob", room: "simulcast")
                defer { bob.disconnect() }
                let joinedAfter = Date().timeIntervalSince1970 - started  // bob's times count from his join, this long after the relay started
                func relayTime(_ seconds: Double) -> Double { seconds + joinedAfter }
                // As long as aiortc's run: to the end.
                _ = await SDKPeer.poll(timeout: .seconds(Self.endAt + 10)) { Date().timeIntervalSince1970 - started > Self.endAt }
                SDKJoinFigures.record(bob, label: "simulcast, through netsim")
                seen = try #require(bob.screen("alice")?.seen.withLock { $0 }, "bob subscribed to no video of alice")
                changes = seen.changes.map { (relayTime($0.seconds), "\($0.width)x\($0.height)") }
                timeline = changes
            case .aiortc:
                let token = try InProcessPlatform.token(platform.server, identity: "bob", grants: [.video(.init(room: "simulcast"))])
                let script = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sdk-simulcast-bob-\(UUID().uuidString).py")
                try ChromiumScripts.simulcastSubscriber.write(to: script, atomically: true, encoding: .utf8)
                defer { try? FileManager.default.removeItem(at: script) }
                let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
                let bob = try ChildProcess(executable: python, arguments: [
                    script.path, "ws://127.0.0.1:\(platform.server.port)/v1/signaling", token, String(mediaPort), String(relayPort),
                    String(started), String(Self.endAt),
                ])
                defer { bob.kill() }
                let result = await bob.waitForJSON(key: "result", timeout: .seconds(Self.endAt + 15))?["result"] as? [String: Any]
                let got = try #require(result, "bob (aiortc) printed no result: \(bob.stderr.suffix(3000))")
                var picture = SDKPeer.Screen.Seen()
                picture.sizes = got["sizes"] as? [String: Int] ?? [:]
                picture.frames = got["frames"] as? Int ?? 0
                seen = picture
                changes = (got["changes"] as? [[Any]] ?? []).map { (ChromiumRun.number($0[0]), "\($0[1])x\($0[2])") }
                print("SDK simulcast (aiortc bob): key frames [t, w, h] \(got["keyframes"] ?? "-"), errors \(got["errors"] ?? "-")")
                for keyFrame in got["keyframes"] as? [[Any]] ?? [] where keyFrame.count == 3 {
                    let size = "\(keyFrame[1])x\(keyFrame[2])"
                    if timeline.last?.1 != size { timeline.append((ChromiumRun.number(keyFrame[0]), size)) }
                }
            }
            proxy.kill()
            let samples = proxy.jsonLines.compactMap { $0["sample"] as? [String: Any] }.map {
                (ChromiumRun.number($0["t"]) - started, $0["metrics"] as? [String: Any] ?? [:])
            }
            print("SDK simulcast: bob's picture sizes over time (s since the relay started) \(changes), frames by size \(seen.sizes), "
                  + "answers rewritten \(proxy.jsonLines.compactMap { $0["rewritten"] }.count)")
            for (t, metrics) in samples {
                print("SDK simulcast: t \(String(format: "%.1f", t)) s, layers \((0..<3).map { Int(ChromiumRun.number(metrics["parley_media_simulcast_layer\($0)_packets_total"])) }), "
                      + "switches \(Int(ChromiumRun.number(metrics["parley_media_layer_switches_total"]))), "
                      + "slot switches \(Int(ChromiumRun.number(metrics["parley_media_track_switches_total"]))), "
                      + "probes passed/failed \(Int(ChromiumRun.number(metrics["parley_media_probes_passed_total"])))/"
                      + "\(Int(ChromiumRun.number(metrics["parley_media_probes_failed_total"]))), "
                      + "padding \(Int(ChromiumRun.number(metrics["parley_media_probe_padding_total"])))")
            }
            netsim.kill()
            print("SDK simulcast: netsim \(netsim.stdout.suffix(1500))")

            // What the SFU forwarded bob, layer by layer: the full layer (f, the third) before the
            // limit, less of it under the limit, and the full layer again once it lifted.
            func share(from start: Double, to end: Double) -> Double {
                let window = samples.filter { $0.0 >= start && $0.0 <= end }
                guard let first = window.first?.1, let last = window.last?.1 else { return -1 }
                let counts = (0..<3).map { ChromiumRun.number(last["parley_media_simulcast_layer\($0)_packets_total"])
                    - ChromiumRun.number(first["parley_media_simulcast_layer\($0)_packets_total"]) }
                let total = counts.reduce(0, +)
                return total > 0 ? counts[2] / total : -1
            }
            let before = share(from: 3, to: Self.limitAt)
            let under = share(from: Self.limitAt + 4, to: Self.liftAt)
            // Down: the first smaller picture under the limit. Up: the full-size picture he got back
            // to for good, after his last smaller one (probes up under the limit fail; a probe just
            // before the lift may hold, then the time is negative).
            let down = timeline.first { $0.0 >= Self.limitAt && $0.0 < Self.liftAt && $0.1 != full }
            let lastDown = timeline.lastIndex { $0.1 != full } ?? timeline.count
            let up = timeline.dropFirst(lastDown).first { $0.1 == full }
            let after = share(from: max(up?.0 ?? Self.liftAt, Self.liftAt) + 1, to: Self.endAt)
            print("SDK simulcast: share of bob's video from the full layer: before the limit \(before), under it \(under), after it \(after)")
            print("SDK simulcast: layer switch times (\(subscriber.rawValue) bob): down \(down.map { String(format: "%.2f", $0.0 - Self.limitAt) } ?? "-") s "
                  + "after the limit (to \(down?.1 ?? "-")), up \(up.map { String(format: "%.2f", $0.0 - Self.liftAt) } ?? "-") s after the lift")
            let last = samples.last?.1 ?? [:]

            // bob's media went through the relay, and he decoded alice's full layer before the limit.
            #expect(netsim.stdout.contains("clients 1"), "bob's media did not go through netsim: \(netsim.stdout)")
            #expect(subscriber == .aiortc || proxy.jsonLines.contains { $0["rewritten"] != nil }, "no answer went through the proxy")
            #expect(before > 0.8, "before the limit, \(Int(before * 100)) % from the full layer")
            #expect((changes.first?.0 ?? .infinity) < Self.limitAt && changes.first?.1 == full, "no full-size frame before the limit: \(changes)")
            #expect((seen.sizes[full] ?? 0) > 100, "decoded sizes \(seen.sizes)")

            // Moved down a layer under the limit (not switched off), and back up after it.
            #expect(under >= 0 && under < 0.7, "under the limit, \(Int(under * 100)) % from the full layer")
            #expect(after > 0.8 && after > under + 0.2, "after the limit lifted, \(Int(after * 100)) % from the full layer")
            #expect(down != nil, "bob was not moved down under the limit: \(timeline)")
            #expect(up != nil, "bob was not moved back to full size after the lift: \(timeline)")
            // His decoder showed it: frames at a smaller size, then at full size again, to the end.
            #expect(seen.sizes.keys.contains { $0 != full }, "decoded sizes \(seen.sizes)")
            #expect(changes.contains { $0.1 != full } && changes.last?.1 == full && (changes.last?.0 ?? 0) > Self.limitAt,
                    "decoded sizes over time \(changes)")
            #expect(ChromiumRun.number(last["parley_media_layer_switches_total"]) >= 2, "metrics \(last)")
            if let down, let up { SimulcastSwitchFigures.record(subscriber, down: down.0 - Self.limitAt, up: up.0 - Self.liftAt) }
            // The pattern's frame numbers advance (one moving picture, never an older frame after a
            // newer one), read from the full-size frames (a smaller layer scales the code down).
            if subscriber == .sdk {
                let numbers = zip(seen.numbers, seen.numberWidths).filter { $0.1 == 640 }.map(\.0)
                let backwards = zip(numbers.indices, zip(numbers, numbers.dropFirst())).filter { $0.1.0 >= $0.1.1 }
                #expect(numbers.count > 100, "\(numbers.count) full-size frames with a readable number")
                // Each frame is shown once and in order, retransmissions and late frames included.
                #expect(backwards.isEmpty, "frame numbers do not advance: at \(backwards.prefix(5).map { "\($0.0): \($0.1.0) → \($0.1.1)" })")
            }
        }
    }

    /// The relay's port from netsim's "relaying 127.0.0.1:PORT -> …" line.
    static func relayPort(_ stdout: String) -> Int? {
        guard let line = stdout.split(separator: "\n").first(where: { $0.contains("relaying") }),
              let address = line.split(separator: " ").first(where: { $0.hasPrefix("127.0.0.1:") }) else { return nil }
        return Int(address.split(separator: ":").last ?? "")
    }

    /// Starts `proxy.py` (written to a scratch directory) for `platform`'s server.
    static func startProxy(_ platform: InProcessPlatform, mediaPort: Int, relayPort: Int) throws -> ChildProcess {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sdk-simulcast-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("proxy.py")
        try Self.proxy.write(to: script, atomically: true, encoding: .utf8)
        let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
        return try ChildProcess(executable: python, arguments: [script.path, String(platform.server.port), String(mediaPort),
                                                                String(relayPort), String(Self.endAt + 30)])
    }

    /// A signaling proxy on an ephemeral loopback port (printed as `{"listening": PORT}`): each
    /// WebSocket is relayed to the server's (same path); in the server's messages that carry an
    /// `answer` (SDP), the host candidate's port MEDIA becomes RELAY (`{"rewritten": type}`).
    /// Once a second it prints the server's simulcast counters: `{"sample": {"t": unix time, "metrics": {…}}}`.
    /// Ends after SECONDS.
    static let proxy = #"""
import asyncio, json, sys, time, urllib.request
from websockets.asyncio.server import serve
from websockets.asyncio.client import connect

http_port, media_port, relay_port, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
WANTED = ("parley_media_layer_switches_total", "parley_media_track_switches_total", "parley_media_simulcast_layer0_packets_total",
          "parley_media_simulcast_layer1_packets_total", "parley_media_simulcast_layer2_packets_total",
          "parley_media_probes_passed_total", "parley_media_probes_failed_total", "parley_media_probe_padding_total")

def emit(o):
    print(json.dumps(o), flush=True)

def relayed(text):
    try:
        m = json.loads(text)
    except ValueError:
        return text
    if isinstance(m, dict) and isinstance(m.get("answer"), str):
        m["answer"] = m["answer"].replace(" %s typ host" % media_port, " %s typ host" % relay_port)
        emit({"rewritten": m.get("type")})
        return json.dumps(m)
    return text

async def handler(client):
    async with connect("ws://127.0.0.1:%s%s" % (http_port, client.request.path), max_size=None) as server:
        async def up():
            async for m in client:
                await server.send(m)
        async def down():
            async for m in server:
                await client.send(relayed(m) if isinstance(m, str) else m)
        tasks = [asyncio.ensure_future(up()), asyncio.ensure_future(down())]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for t in tasks:
            t.cancel()

def metrics():
    with urllib.request.urlopen("http://127.0.0.1:%s/metrics" % http_port, timeout=3) as r:
        text = r.read().decode()
    return {l.split()[0]: float(l.split()[1]) for l in text.splitlines() if l.split(" ")[0] in WANTED}

async def main():
    async with serve(handler, "127.0.0.1", 0, max_size=None) as server:
        emit({"listening": server.sockets[0].getsockname()[1]})
        end = time.time() + seconds
        while time.time() < end:
            try:
                emit({"sample": {"t": time.time(), "metrics": await asyncio.to_thread(metrics)}})
            except Exception as e:
                emit({"sample_error": repr(e)})
            await asyncio.sleep(1)

asyncio.run(main())
"""#
}

/// The layer switch times over the runs in this process, per kind of subscriber, printed as p50
/// and range after each run (the issue's figure).
enum SimulcastSwitchFigures {
    static let samples = Mutex<[String: (down: [Double], up: [Double])]>([:])

    static func record(_ subscriber: SDKSimulcastInteropTests.Subscriber, down: Double, up: Double) {
        let (downs, ups) = samples.withLock { s in
            s[subscriber.rawValue, default: ([], [])].down.append(down)
            s[subscriber.rawValue, default: ([], [])].up.append(up)
            return s[subscriber.rawValue]!
        }
        func summary(_ values: [Double]) -> String {
            let sorted = values.sorted()
            return String(format: "p50 %.2f s (%.2f–%.2f)", sorted[sorted.count / 2], sorted.first!, sorted.last!)
        }
        print("SDK simulcast switch figures (\(subscriber.rawValue) bob, \(downs.count) runs): limit → smaller frame \(summary(downs)), "
              + "lift → full-size frame \(summary(ups))")
    }
}
