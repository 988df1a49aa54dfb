import Foundation
import HTTPWire
import ParleyNet
import ParleyTestSupport
import Testing

/// Echoes method, path and body length; `/slow` waits, `/chunked` answers with a chunked body.
let echoHandler: HTTPServer.Handler = { request in
    switch request.path {
    case "/slow":
        try? await Task.sleep(for: .milliseconds(600))
        return .text("slow done")
    case "/chunked":
        var response = HTTPResponse(status: 200, headers: ["Transfer-Encoding": "chunked"])
        response.body = Array("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".utf8)
        return response
    default:
        return .text("\(request.method) \(request.path) \(request.body.count) \(request.bodyText.prefix(16))")
    }
}

func withServer(_ configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
                _ body: (HTTPServer) async throws -> Void) async throws {
    let server = HTTPServer(configuration: configuration, handler: echoHandler)
    try server.start()
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

@Suite(.timeLimit(.minutes(1)), .tags(.interop)) struct HTTPServerCurlTests {
    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        try await withServer { server in
            let base = "http://127.0.0.1:\(server.localPort)"
            let result = try await runProcess("/usr/bin/curl", [
                "-s", "-w", "|%{num_connects}\\n", "\(base)/a", "\(base)/b", "\(base)/c",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines == ["GET /a 0 |1", "GET /b 0 |0", "GET /c 0 |0"])
        }
    }

    @Test func chunkedUpload() async throws {
        try await withServer { server in
            let body = String(repeating: "0123456789", count: 5000)
            let result = try await runProcess("/usr/bin/curl", [
                "-s", "-H", "Transfer-Encoding: chunked", "--data-binary", "@-",
                "http://127.0.0.1:\(server.localPort)/upload",
            ], stdin: Array(body.utf8))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "POST /upload 50000 0123456789012345")
        }
    }

    @Test func oversizeBodyGets413() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.maxBodyBytes = 1000
        try await withServer(configuration) { server in
            let big = [UInt8](repeating: 0x41, count: 5000)
            for extra in [[], ["-H", "Transfer-Encoding: chunked"]] {
                let result = try await runProcess("/usr/bin/curl", [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@-",
                ] + extra + ["http://127.0.0.1:\(server.localPort)/upload"], stdin: big)
                #expect(result.stdout == "413", "curl \(extra): \(result.stdout) \(result.stderr)")
            }
        }
    }
}

@Suite(.timeLimit(.minutes(1)), .tags(.interop)) struct HTTPServerRawTests {
    @Test func garbageGets400AndServerKeepsServing() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.localPort)
            client.send([0x00, 0xFF, 0x13, 0x37] + Array("garbage garbage\r\n\r\n".utf8))
            let reply = await client.receive()
            #expect(reply.hasPrefix("HTTP/1.1 400 Bad Request"), "\(reply)")
            #expect(reply.contains("Connection: close"))
            let ok = try await runProcess("/usr/bin/curl", ["-s", "http://127.0.0.1:\(server.localPort)/still"])
            #expect(ok.stdout == "GET /still 0 ")
        }
    }

    @Test func oversizeHeadersGet431() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.maxHeaderBytes = 512
        try await withServer(configuration) { server in
            let client = try RawClient(port: server.localPort)
            client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 2000))\r\n\r\n")
            #expect(await client.receive().hasPrefix("HTTP/1.1 431"))
        }
    }

    @Test func slowHeadersGet408() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.headerTimeout = .milliseconds(300)
        try await withServer(configuration) { server in
            let client = try RawClient(port: server.localPort)
            client.send("GET / HTTP/1.1\r\nHost: x\r\n")
            let start = ContinuousClock.now
            let reply = await client.receive()
            #expect(reply.hasPrefix("HTTP/1.1 408"), "\(reply)")
            #expect(ContinuousClock.now - start < .seconds(4.5))  // 300 ms nominal; generous for loaded CI
        }
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.idleTimeout = .milliseconds(300)
        try await withServer(configuration) { server in
            let client = try RawClient(port: server.localPort)
            client.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
            let reply = await client.receive()  // returns at EOF: the idle connection was closed
            #expect(reply.hasPrefix("HTTP/1.1 200 OK"))
            #expect(reply.hasSuffix("GET /x 0 "))
        }
    }

    @Test func pipelinedRequestsAnsweredInOrder() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.localPort)
            client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let reply = await client.receive()
            let slow = try #require(reply.range(of: "slow done"))
            let two = try #require(reply.range(of: "GET /two"))
            #expect(slow.lowerBound < two.lowerBound)
        }
    }

    @Test func gracefulShutdownFinishesInFlightRequest() async throws {
        let (started, signal) = AsyncStream<Void>.makeStream()
        let server = HTTPServer(configuration: HTTPServer.Configuration()) { request in
            signal.yield()
            try? await Task.sleep(for: .milliseconds(500))
            return .text("slow done")
        }
        try server.start()
        let port = server.localPort
        let client = try HTTPClient()
        defer { client.shutdown() }
        let inFlight = Task { try await client.get("http://127.0.0.1:\(port)/slow", timeout: .seconds(10)) }
        for await _ in started { break }  // the handler is running
        await server.shutdown()
        let response = try await inFlight.value
        #expect(response.status == 200)
        #expect(response.bodyText == "slow done")
        #expect(response.headers["Connection"] == "close")
        await #expect(throws: (any Error).self) { try await client.get("http://127.0.0.1:\(port)/", timeout: .seconds(2)) }
    }
}

@Suite(.timeLimit(.minutes(1))) struct HTTPClientTests {
    @Test func keepAliveChunkedAndHead() async throws {
        try await withServer { server in
            let client = try HTTPClient()
            defer { client.shutdown() }
            let base = "http://127.0.0.1:\(server.localPort)"
            for i in 0..<5 {
                let response = try await client.send(HTTPRequest(method: "POST", body: Array("n\(i)".utf8)), to: "\(base)/p")
                #expect(response.bodyText == "POST /p 2 n\(i)")
            }
            #expect(try await client.get("\(base)/chunked").bodyText == "hello world")
            let head = try await client.send(HTTPRequest(method: "HEAD"), to: "\(base)/h")
            #expect(head.body.isEmpty)
            #expect(head.headers["Content-Length"] == "10")
            #expect(try await client.get("\(base)/after-head").bodyText == "GET /after-head 0 ")
        }
    }

    @Test func timeoutFires() async throws {
        try await withServer { server in
            let client = try HTTPClient()
            defer { client.shutdown() }
            await #expect(throws: NetError.self) {
                try await client.get("http://127.0.0.1:\(server.localPort)/slow", timeout: .milliseconds(100))
            }
        }
    }
}
