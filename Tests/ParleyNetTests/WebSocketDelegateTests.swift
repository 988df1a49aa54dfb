import ParleyNet
import Synchronization
import Testing
import WebSocketWire

/// Echoes each message from the event loop and records what it saw, in order.
private final class EchoDelegate: WebSocketDelegate {
    let socket: WebSocket
    let received = Mutex<[WebSocketMessage]>([])
    let closedCount = Atomic<Int>(0)

    init(_ socket: WebSocket) { self.socket = socket }

    func webSocketReceived(_ message: WebSocketMessage) {
        received.withLock { $0.append(message) }
        if message == .text("close-me") { return socket.startClose(code: WebSocketCloseCode(4002), reason: "asked") }
        if case .text(let text) = message { socket.enqueue(text: text) }
    }

    func webSocketClosed() { closedCount.add(1, ordering: .relaxed) }
}

/// Sockets accepted by a delegate route: messages arrive on the loop in order (fragmented and
/// large ones reassembled), the close is reported once, and shutdown still closes them with 1001.
@Suite struct WebSocketDelegateTests {
    @Test func delegateRouteReceivesInOrderAndIsToldOfTheClose() async throws {
        let delegates = Mutex<[EchoDelegate]>([])
        var configuration = HTTPServer.Configuration()
        configuration.webSocketMaxMessageBytes = 64 * 1024
        try await withServer(configuration) { server in
            server.addWebSocketRoute("/echo", accept: { _, socket in
                let delegate = EchoDelegate(socket)
                delegates.withLock { $0.append(delegate) }
                return delegate
            })
            let ws = try await WebSocket.connect(url: "ws://127.0.0.1:\(server.localPort)/echo")
            for i in 0..<20 { try await ws.send(text: "m\(i)") }
            for i in 0..<20 { #expect(await ws.receive() == .text("m\(i)")) }
            let large = String(repeating: "x", count: 64 * 1024)
            try await ws.send(.text(large), fragmentSize: 1000)
            #expect(await ws.receive() == .text(large))
            try await ws.ping([7])
            try await ws.send(text: "close-me")
            #expect(await ws.receive() == nil)
            #expect(ws.closeCode?.rawValue == 4002)
            try await Task.sleep(for: .milliseconds(100))
            let delegate = try #require(delegates.withLock { $0.first })
            #expect(delegate.received.withLock { $0.count } == 22)
            #expect(delegate.closedCount.load(ordering: .relaxed) == 1)
        }
    }

    @Test func shutdownClosesDelegateSocketsWithGoingAway() async throws {
        let server = HTTPServer(configuration: HTTPServer.Configuration(), handler: echoHandler)
        let delegates = Mutex<[EchoDelegate]>([])
        server.addWebSocketRoute("/hold", accept: { _, socket in
            let delegate = EchoDelegate(socket)
            delegates.withLock { $0.append(delegate) }
            return delegate
        })
        try server.start()
        let ws = try await WebSocket.connect(url: "ws://127.0.0.1:\(server.localPort)/hold")
        await server.shutdown()
        #expect(await ws.receive() == nil)
        #expect(ws.closeCode == .goingAway)
        #expect(delegates.withLock { $0.map { $0.closedCount.load(ordering: .relaxed) } } == [1])
    }
}
