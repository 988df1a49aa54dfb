import HTTP2Wire
import Testing
@testable import ParleyNet

/// The server side of a scripted exchange: parses what the client core writes and encodes answers.
struct ScriptedServer {
    var frames = HTTP2FrameDecoder()
    var decoder = HPACKDecoder()
    var encoder = HPACKEncoder()
    var preface: [UInt8] = []

    /// The frames in `bytes`, after checking the connection preface once.
    mutating func read(_ bytes: [UInt8]) throws -> [HTTP2Frame] {
        var bytes = bytes[...]
        if preface.count < 24 {
            let take = min(24 - preface.count, bytes.count)
            preface += bytes.prefix(take)
            bytes = bytes.dropFirst(take)
            if preface.count == 24 { #expect(preface == HTTP2ConnectionPreface.bytes) }
        }
        frames.append(bytes)
        var out: [HTTP2Frame] = []
        while let frame = try frames.next() { out.append(frame) }
        return out
    }

    /// The decoded fields of a HEADERS frame.
    mutating func fields(_ frame: HTTP2Frame) throws -> [String] {
        guard case .headers(let h) = frame.payload else { return [] }
        return try decoder.decode(h.headerBlock).map { "\($0.name): \($0.value)" }
    }

    mutating func response(_ stream: UInt32, status: Int = 200, fields: [(String, String)] = [], endStream: Bool = false) -> [UInt8] {
        let block = encoder.encode([HPACKHeaderField(name: ":status", value: String(status))]
                                   + fields.map { HPACKHeaderField(name: $0.0, value: $0.1) })
        return HTTP2Frame(streamID: stream, payload: .headers(HTTP2HeadersPayload(headerBlock: block, endStream: endStream))).serialized
    }

    static func frame(_ stream: UInt32, _ payload: HTTP2Frame.Payload) -> [UInt8] {
        HTTP2Frame(streamID: stream, payload: payload).serialized
    }

    static func settings(_ parameters: [HTTP2Setting] = []) -> [UInt8] { frame(0, .settings(parameters)) }

    static func data(_ stream: UInt32, _ bytes: [UInt8], end: Bool = true) -> [UInt8] {
        frame(stream, .data(bytes, endStream: end, padding: nil))
    }
}

/// Events as text, since they carry errors.
func describe(_ events: [HTTP2ClientCore.Event]) -> [String] {
    events.map { event in
        switch event {
        case .response(let id, let r): "response \(id) \(r.status) \(r.bodyText)"
        case .failure(let id, let error): "failure \(id) \(error)"
        case .retry(let id, _): "retry \(id)"
        case .close: "close"
        }
    }
}

/// `HTTP2ClientCore` driven frame by frame: settings, stream limits, flow control, PING, GOAWAY,
/// resets and malformed input (RFC 9113 §5, §6, §8).
@Suite struct HTTP2ClientCoreTests {
    static let options = HTTP2ClientCore.Options(defaultAuthority: "push.example:443")

    /// A core past the settings exchange, and the server that saw its preface and SETTINGS.
    static func connected(_ settings: [HTTP2Setting] = [], options: HTTP2ClientCore.Options = options) throws
        -> (HTTP2ClientCore, ScriptedServer) {
        var core = HTTP2ClientCore(options: options)
        var server = ScriptedServer()
        _ = try server.read(core.takeOutput())
        #expect(describe(core.receive(ScriptedServer.settings(settings))).isEmpty)
        #expect(try server.read(core.takeOutput()) == [HTTP2Frame(streamID: 0, payload: .settingsAck)])
        return (core, server)
    }

    @Test func prefaceSettingsAndConnectionWindow() throws {
        var core = HTTP2ClientCore(options: Self.options)
        var server = ScriptedServer()
        let frames = try server.read(core.takeOutput())
        #expect(frames == [
            HTTP2Frame(streamID: 0, payload: .settings([HTTP2Setting(.enablePush, 0), HTTP2Setting(.initialWindowSize, 1 << 20),
                                                         HTTP2Setting(.maxHeaderListSize, 65_536)])),
            HTTP2Frame(streamID: 0, payload: .windowUpdate(increment: UInt32(1 << 20) - 65_535)),
        ])
    }

    @Test func requestsWaitForTheServerSettings() throws {
        var core = HTTP2ClientCore(options: Self.options)
        var server = ScriptedServer()
        _ = try server.read(core.takeOutput())
        #expect(describe(core.submit(1, HTTP2Request(method: "POST", path: "/3/device/ab", headers: [
            ("Authorization", "bearer x"), ("Connection", "keep-alive"), ("apns-topic", "t")], body: Array("{}".utf8)))).isEmpty)
        #expect(core.takeOutput().isEmpty)
        _ = core.receive(ScriptedServer.settings())
        let frames = try server.read(core.takeOutput())
        #expect(frames.count == 3)
        #expect(frames[0] == HTTP2Frame(streamID: 0, payload: .settingsAck))
        #expect(try server.fields(frames[1]) == [":method: POST", ":scheme: https", ":authority: push.example:443",
                                                 ":path: /3/device/ab", "authorization: bearer x", "apns-topic: t",
                                                 "content-length: 2"])
        #expect(frames[2] == HTTP2Frame(streamID: 1, payload: .data(Array("{}".utf8), endStream: true, padding: nil)))
        let events = core.receive(server.response(1, fields: [("apns-id", "X")]) + ScriptedServer.data(1, Array("ok".utf8)))
        #expect(describe(events) == ["response 1 200 ok"])
    }

    @Test func streamsStayWithinMaxConcurrentStreams() throws {
        var (core, server) = try Self.connected([HTTP2Setting(.maxConcurrentStreams, 2)])
        for id in 1...4 as ClosedRange<UInt64> { _ = core.submit(id, HTTP2Request(path: "/\(id)")) }
        #expect(try server.read(core.takeOutput()).map(\.streamID) == [1, 3])
        #expect(describe(core.receive(server.response(3, endStream: true))) == ["response 2 200 "])
        #expect(try server.read(core.takeOutput()).map(\.streamID) == [5])
        #expect(core.load == 3)
    }

    @Test func sendingWaitsForWindowUpdates() throws {
        var (core, server) = try Self.connected([HTTP2Setting(.initialWindowSize, 10)])
        _ = core.submit(1, HTTP2Request(method: "POST", path: "/", body: Array(0..<25)))
        var frames = try server.read(core.takeOutput())
        #expect(frames.count == 2 && frames[1] == HTTP2Frame(streamID: 1, payload: .data(Array(0..<10), endStream: false, padding: nil)))
        _ = core.receive(ScriptedServer.frame(1, .windowUpdate(increment: 10)))
        frames = try server.read(core.takeOutput())
        #expect(frames == [HTTP2Frame(streamID: 1, payload: .data(Array(10..<20), endStream: false, padding: nil))])
        // §6.9.2: lowering SETTINGS_INITIAL_WINDOW_SIZE by 5 makes the window -5; 10 more leaves 5.
        _ = core.receive(ScriptedServer.settings([HTTP2Setting(.initialWindowSize, 5)]))
        _ = core.receive(ScriptedServer.frame(1, .windowUpdate(increment: 10)))
        frames = try server.read(core.takeOutput())
        #expect(frames == [HTTP2Frame(streamID: 0, payload: .settingsAck),
                           HTTP2Frame(streamID: 1, payload: .data(Array(20..<25), endStream: true, padding: nil))])
    }

    @Test func connectionWindowLimitsEveryStream() throws {
        var (core, server) = try Self.connected([HTTP2Setting(.initialWindowSize, 100_000)])
        _ = core.submit(1, HTTP2Request(method: "POST", path: "/", body: [UInt8](repeating: 1, count: 70_000)))
        let sent = try server.read(core.takeOutput()).reduce(0) { $0 + $1.flowControlledLength }
        #expect(sent == 65_535)
        _ = core.receive(ScriptedServer.frame(0, .windowUpdate(increment: 10_000)))
        let rest = try server.read(core.takeOutput())
        #expect(rest.map(\.flowControlledLength) == [70_000 - 65_535])
    }

    @Test func receivedDataIsAcknowledgedAndWindowsEnforced() throws {
        var options = Self.options
        options.receiveWindow = 100
        var (core, server) = try Self.connected(options: options)
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = core.submit(2, HTTP2Request(path: "/"))
        _ = try server.read(core.takeOutput())
        _ = core.receive(server.response(1) + ScriptedServer.data(1, [UInt8](repeating: 7, count: 60), end: false))
        #expect(try server.read(core.takeOutput()) == [HTTP2Frame(streamID: 1, payload: .windowUpdate(increment: 60))])
        _ = core.receive(server.response(3))
        let events = core.receive(ScriptedServer.data(3, [UInt8](repeating: 7, count: 101)))
        #expect(describe(events) == ["failure 2 HTTP/2 stream 3 error FLOW_CONTROL_ERROR: DATA beyond the stream window"])
        #expect(try server.read(core.takeOutput()) == [HTTP2Frame(streamID: 3, payload: .rstStream(.flowControlError))])
    }

    @Test func pingIsAnsweredWithTheSamePayload() throws {
        var (core, server) = try Self.connected()
        _ = core.receive(ScriptedServer.frame(0, .ping(0xDEAD_BEEF, ack: false)) + ScriptedServer.frame(0, .ping(1, ack: true)))
        #expect(try server.read(core.takeOutput()) == [HTTP2Frame(streamID: 0, payload: .ping(0xDEAD_BEEF, ack: true))])
    }

    @Test func goAwayRetriesUnprocessedStreamsAndClosesWhenDrained() throws {
        var (core, server) = try Self.connected()
        for id in 1...3 as ClosedRange<UInt64> { _ = core.submit(id, HTTP2Request(path: "/")) }
        _ = try server.read(core.takeOutput())
        let events = core.receive(ScriptedServer.frame(0, .goAway(lastStreamID: 1, errorCode: .noError, debugData: [])))
        #expect(describe(events) == ["retry 2", "retry 3"])
        #expect(!core.acceptsRequests)
        #expect(describe(core.submit(4, HTTP2Request(path: "/"))) == ["retry 4"])
        #expect(describe(core.receive(server.response(1, endStream: true))) == ["response 1 200 ", "close"])
    }

    @Test func refusedStreamIsRetriedOtherResetsFail() throws {
        var (core, server) = try Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = core.submit(2, HTTP2Request(path: "/"))
        _ = try server.read(core.takeOutput())
        #expect(describe(core.receive(ScriptedServer.frame(1, .rstStream(.refusedStream)))) == ["retry 1"])
        #expect(describe(core.receive(ScriptedServer.frame(3, .rstStream(.internalError))))
                == ["failure 2 stream reset by the server: INTERNAL_ERROR"])
    }

    @Test func malformedFrameEndsTheConnectionWithGoAway() throws {
        var (core, server) = try Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = try server.read(core.takeOutput())
        let events = core.receive([0, 0, 7, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7])  // PING of 7 octets
        #expect(describe(events) == ["failure 1 HTTP/2 connection error FRAME_SIZE_ERROR: PING of 7 octets", "close"])
        let frames = try server.read(core.takeOutput())
        guard case .goAway(_, let code, _) = frames.first?.payload else { Issue.record("no GOAWAY"); return }
        #expect(code == .frameSizeError)
        #expect(describe(core.receive(ScriptedServer.frame(0, .ping(1, ack: false)))).isEmpty)
    }

    @Test func pushPromiseIsAProtocolError() throws {
        var (core, server) = try Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = try server.read(core.takeOutput())
        let events = core.receive(ScriptedServer.frame(1, .pushPromise(HTTP2PushPromisePayload(promisedStreamID: 2, headerBlock: [0x82]))))
        #expect(describe(events).last == "close")
        #expect(describe(events).first?.contains("PROTOCOL_ERROR") == true)
    }

    @Test func informationalResponsesAndTrailers() throws {
        var (core, server) = try Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = try server.read(core.takeOutput())
        #expect(describe(core.receive(server.response(1, status: 100))).isEmpty)
        _ = core.receive(server.response(1, fields: [("x-a", "1")]) + ScriptedServer.data(1, [65], end: false))
        let trailers = server.encoder.encode([HPACKHeaderField(name: "x-trailer", value: "t")])
        var response: HTTP2Response?
        for event in core.receive(ScriptedServer.frame(1, .headers(HTTP2HeadersPayload(headerBlock: trailers, endStream: true)))) {
            if case .response(_, let r) = event { response = r }
        }
        #expect(response?.status == 200 && response?.bodyText == "A")
        #expect(response?.headers.map { "\($0.name)=\($0.value)" } == ["x-a=1", "x-trailer=t"])
    }

    @Test func responseWithoutStatusOrTooLargeFailsTheStream() throws {
        var options = Self.options
        options.maxResponseBodyBytes = 4
        var (core, server) = try Self.connected(options: options)
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = core.submit(2, HTTP2Request(path: "/"))
        _ = try server.read(core.takeOutput())
        let noStatus = server.encoder.encode([HPACKHeaderField(name: "x", value: "y")])
        let events = core.receive(ScriptedServer.frame(1, .headers(HTTP2HeadersPayload(headerBlock: noStatus, endStream: true))))
        #expect(describe(events) == ["failure 1 HTTP/2 stream 1 error PROTOCOL_ERROR: response without a valid :status"])
        #expect(describe(core.receive(server.response(3) + ScriptedServer.data(3, [1, 2, 3, 4, 5])))
                == ["failure 2 response body exceeds 4 octets"])
        #expect(try server.read(core.takeOutput()) == [HTTP2Frame(streamID: 1, payload: .rstStream(.protocolError)),
                                                      HTTP2Frame(streamID: 3, payload: .rstStream(.cancel))])
        #expect(core.acceptsRequests)
    }

    @Test func cancelResetsTheStream() throws {
        var (core, server) = try Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/slow"))
        _ = try server.read(core.takeOutput())
        _ = core.cancel(1)
        #expect(try server.read(core.takeOutput()) == [HTTP2Frame(streamID: 1, payload: .rstStream(.cancel))])
        // A late answer for the cancelled stream is decoded (HPACK stays in step) and dropped.
        #expect(describe(core.receive(server.response(1) + ScriptedServer.data(1, [1]))).isEmpty)
        _ = core.submit(2, HTTP2Request(path: "/"))
        _ = try server.read(core.takeOutput())
        #expect(describe(core.receive(server.response(3, endStream: true))) == ["response 2 200 "])
    }

    @Test func largeHeaderBlocksUseContinuation() throws {
        var (core, server) = try Self.connected()
        let big = String(repeating: "v", count: 40_000)
        _ = core.submit(1, HTTP2Request(path: "/", headers: [("x-big", big)]))
        var raw = core.takeOutput()
        var types: [UInt8] = []
        while raw.count >= 9 {
            let length = Int(raw[0]) << 16 | Int(raw[1]) << 8 | Int(raw[2])
            types.append(raw[3])
            raw.removeFirst(9 + length)
        }
        #expect(types == [1, 9, 9])  // HEADERS, CONTINUATION, CONTINUATION (16 KiB frames)
        _ = server
    }
}
