import Foundation
import ParleyCrypto
import ParleyNet
import ParleyTestSupport
import Synchronization
import Testing
import WebSocketWire

private let pythonClient = #"""
import asyncio, json, sys
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

async def main(port):
    out = {}
    uri = f"ws://127.0.0.1:{port}/echo"
    async with connect(uri, max_size=None) as ws:
        await ws.send("hello")
        out["text"] = await ws.recv()
        await ws.send(b"\x00\x01\x02")
        out["binary"] = list(await ws.recv())
        await ws.send(["frag-", "ment", "ed"])  # one text message in three frames
        out["fragmented"] = await ws.recv()
        waiter = await ws.ping(b"pp")
        await asyncio.wait_for(waiter, 5)
        out["pong"] = True
        await ws.close(code=4001, reason="bye")
        out["close"] = ws.close_code
    async with connect(uri, max_size=None) as ws:
        try:
            await ws.send(b"x" * 100000)
            await asyncio.wait_for(ws.recv(), 5)
        except ConnectionClosed as e:
            out["oversize"] = e.rcvd.code if e.rcvd else None
    async with connect(uri) as ws:
        await ws.send("close-me")
        try:
            await asyncio.wait_for(ws.recv(), 5)
        except ConnectionClosed as e:
            out["serverClose"] = [e.rcvd.code, e.rcvd.reason]
    print(json.dumps(out))

asyncio.run(main(int(sys.argv[1])))
"""#

private let pythonServer = #"""
import asyncio, json, os, sys
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

result = {"closes": []}
done = asyncio.Event()

async def handler(ws):
    try:
        await serve_one(ws)
    except ConnectionClosed:
        pass  # raised for close codes other than 1000/1001
    result["closes"].append([ws.close_code, ws.close_reason])
    if len(result["closes"]) == 2:
        done.set()

async def serve_one(ws):
    async for msg in ws:
        if msg == "ping-me":
            waiter = await ws.ping(b"srv")
            await asyncio.wait_for(waiter, 5)
            result["pongFromClient"] = True
            await ws.send("pinged")
        elif msg == "fragment-me":
            await ws.send(["a" * 10, "b" * 10, "c" * 10])
        elif msg == "close-me":
            await ws.close(code=4003, reason="server says bye")
        else:
            await ws.send(msg)

async def main(portfile):
    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        with open(portfile + ".tmp", "w") as f:
            f.write(str(port))
        os.rename(portfile + ".tmp", portfile)
        await asyncio.wait_for(done.wait(), 20)
    print(json.dumps(result))

asyncio.run(main(sys.argv[1]))
"""#

private func json(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    guard let dictionary = object as? [String: Any] else { throw TestFailure("not a JSON object: \(text)") }
    return dictionary
}

@Suite(.timeLimit(.minutes(1)), .tags(.interop)) struct WebSocketInteropTests {
    @Test func pythonClientAgainstOurServer() async throws {
        let python = try venvPython()
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("client.py")
        try pythonClient.write(to: script, atomically: true, encoding: .utf8)

        let closeCodes = Mutex<[UInt16]>([])
        var configuration = HTTPServer.Configuration()
        configuration.webSocketMaxMessageBytes = 64 * 1024
        try await withServer(configuration) { server in
            server.addWebSocketRoute("/echo") { _, ws in
                for await message in ws.messages {
                    if message == .text("close-me") {
                        await ws.close(code: WebSocketCloseCode(4002), reason: "asked")
                        break
                    }
                    try? await ws.send(message)
                }
                if let code = ws.closeCode { closeCodes.withLock { $0.append(code.rawValue) } }
            }
            let result = try await runProcess(python, [script.path, "\(server.localPort)"], timeout: .seconds(30))
            #expect(result.status == 0, "\(result.stderr)")
            let out = try json(result.stdout)
            #expect(out["text"] as? String == "hello")
            #expect(out["binary"] as? [Int] == [0, 1, 2])
            #expect(out["fragmented"] as? String == "frag-mented")
            #expect(out["pong"] as? Bool == true)
            #expect(out["close"] as? Int == 4001)
            #expect(out["oversize"] as? Int == 1009)
            #expect(out["serverClose"] as? [AnyHashable] == [4002, "asked"])
            try await Task.sleep(for: .milliseconds(200))
            #expect(closeCodes.withLock { $0 }.sorted() == [1009, 4001, 4002])
        }
    }

    @Test func ourClientAgainstPythonServer() async throws {
        let python = try venvPython()
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("server.py")
        try pythonServer.write(to: script, atomically: true, encoding: .utf8)
        let portFile = directory.appendingPathComponent("port").path
        let process = try await RunningProcess(python, [script.path, portFile])
        var port: Int?
        for _ in 0..<200 where port == nil {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard let port else {
            let output = try await process.finish(timeout: .seconds(1))
            throw TestFailure("python server did not start: \(output.stderr)")
        }
        let url = "ws://127.0.0.1:\(port)/"

        let ws = try await WebSocket.connect(url: url)
        try await ws.send(text: "hi")
        #expect(await ws.receive() == .text("hi"))
        try await ws.send(binary: [9, 8, 7])
        #expect(await ws.receive() == .binary([9, 8, 7]))
        try await ws.send(.text("fragmented-text"), fragmentSize: 3)
        #expect(await ws.receive() == .text("fragmented-text"))
        try await ws.send(text: "fragment-me")
        #expect(await ws.receive() == .text(String(repeating: "a", count: 10) + String(repeating: "b", count: 10)
            + String(repeating: "c", count: 10)))
        try await ws.send(text: "ping-me")  // the server pings us; we auto-pong
        #expect(await ws.receive() == .text("pinged"))
        try await ws.ping([1, 2, 3])
        await ws.close(code: WebSocketCloseCode(4000), reason: "done")
        #expect(ws.closeCode?.rawValue == 4000)

        let ws2 = try await WebSocket.connect(url: url)
        try await ws2.send(text: "close-me")
        #expect(await ws2.receive() == nil)
        #expect(ws2.closeCode?.rawValue == 4003)
        #expect(ws2.closeReason == "server says bye")

        let result = try await process.finish(timeout: .seconds(20))
        #expect(result.status == 0, "\(result.stderr)")
        let out = try json(result.stdout)
        #expect(out["pongFromClient"] as? Bool == true)
        let closes = out["closes"] as? [[AnyHashable]]
        #expect(closes?.contains([4000, "done"]) == true, "\(result.stdout)")
        #expect(closes?.contains([4003, ""]) == true, "\(result.stdout)")  // we echo the code, not the reason
    }

    @Test func ourClientAgainstOurServerOverTLS() async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cert, key) = try await makeSelfSignedCertificate(in: directory)
        var configuration = HTTPServer.Configuration()
        configuration.tls = .server(certificatePath: cert, privateKeyPath: key)
        configuration.webSocketMaxMessageBytes = 1000
        try await withServer(configuration) { server in
            server.addWebSocketRoute("/echo") { _, ws in
                for await message in ws.messages { try? await ws.send(message) }
            }
            let url = "wss://127.0.0.1:\(server.localPort)/echo"
            let ws = try await WebSocket.connect(url: url, tls: .client(trustRootsPath: cert))
            let big = [UInt8](repeating: 5, count: 900)
            try await ws.send(binary: big)
            #expect(await ws.receive() == .binary(big))
            try await ws.send(.text("über-fragmented"), fragmentSize: 2)
            #expect(await ws.receive() == .text("über-fragmented"))
            try await ws.ping()
            // Over the server's limit: it fails the connection with 1009.
            try await ws.send(binary: [UInt8](repeating: 1, count: 2000))
            #expect(await ws.receive() == nil)
            #expect(ws.closeCode == .messageTooBig)
        }
    }

    @Test func shutdownClosesWebSocketsWithGoingAway() async throws {
        let server = HTTPServer(configuration: HTTPServer.Configuration(), handler: echoHandler)
        server.addWebSocketRoute("/hold") { _, ws in
            for await _ in ws.messages {}
        }
        try server.start()
        let ws = try await WebSocket.connect(url: "ws://127.0.0.1:\(server.localPort)/hold")
        await server.shutdown()
        #expect(await ws.receive() == nil)
        #expect(ws.closeCode == .goingAway)
    }
}
