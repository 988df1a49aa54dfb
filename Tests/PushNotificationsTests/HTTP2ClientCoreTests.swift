import Testing
@testable import ParleyNet

/// `HTTP2ClientCore` (an nghttp2 client session) driven frame by frame: settings, stream limits,
/// flow control, PING, GOAWAY, resets, malformed and hostile input (RFC 9113 §5, §6, §8; RFC 7541).
@Suite struct HTTP2ClientCoreTests {
    static let options = HTTP2ClientCore.Options(defaultAuthority: "push.example:443")
    typealias F = TestFrame

    /// A core past the settings exchange (nghttp2 applies our SETTINGS once acknowledged, §6.5.3),
    /// and the server that saw its preface and SETTINGS.
    static func connected(_ settings: [(UInt16, UInt32)] = [], options: HTTP2ClientCore.Options = options, acknowledge: Bool = true)
        -> (HTTP2ClientCore, ScriptedServer) {
        let core = HTTP2ClientCore(options: options)
        let server = ScriptedServer()
        _ = server.read(core.takeOutput())
        let ack = acknowledge ? F.settingsAck.serialized : []
        #expect(describe(core.receive(F.settings(settings).serialized + ack)).isEmpty)
        #expect(server.read(core.takeOutput()) == [F.settingsAck])
        return (core, server)
    }

    @Test func prefaceSettingsAndConnectionWindow() {
        let core = HTTP2ClientCore(options: Self.options)
        let frames = ScriptedServer().read(core.takeOutput())
        #expect(frames == [
            F.settings([(F.enablePush, 0), (F.initialWindowSize, 1 << 20), (F.maxHeaderListSize, 65_536)]),
            F.windowUpdate(0, UInt32(1 << 20) - 65_535),
        ])
    }

    @Test func requestsWaitForTheServerSettings() {
        let core = HTTP2ClientCore(options: Self.options)
        let server = ScriptedServer()
        _ = server.read(core.takeOutput())
        #expect(describe(core.submit(1, HTTP2Request(method: "POST", path: "/3/device/ab", headers: [
            ("Authorization", "bearer x"), ("Connection", "keep-alive"), ("apns-topic", "t")], body: Array("{}".utf8)))).isEmpty)
        #expect(core.takeOutput().isEmpty)
        _ = core.receive(F.settings().serialized)
        let frames = server.read(core.takeOutput())
        #expect(frames.count == 3)
        guard frames.count == 3 else { return }
        #expect(frames[0] == F.settingsAck)
        #expect(server.fields(frames[1]) == [":method: POST", ":scheme: https", ":authority: push.example:443",
                                            ":path: /3/device/ab", "authorization: bearer x", "apns-topic: t",
                                            "content-length: 2"])
        #expect(frames[2] == F.data(1, Array("{}".utf8)))
        let events = core.receive(server.response(1, fields: [("apns-id", "X")]) + F.data(1, Array("ok".utf8)).serialized)
        #expect(describe(events) == ["response 1 200 ok"])
    }

    @Test func streamsStayWithinMaxConcurrentStreams() {
        let (core, server) = Self.connected([(F.maxConcurrentStreams, 2)])
        for id in 1...4 as ClosedRange<UInt64> { _ = core.submit(id, HTTP2Request(path: "/\(id)")) }
        #expect(server.read(core.takeOutput()).map(\.streamID) == [1, 3])
        #expect(describe(core.receive(server.response(3, endStream: true))) == ["response 2 200 "])
        #expect(server.read(core.takeOutput()).map(\.streamID) == [5])
        #expect(core.load == 3)
    }

    @Test func sendingWaitsForWindowUpdates() {
        let (core, server) = Self.connected([(F.initialWindowSize, 10)])
        _ = core.submit(1, HTTP2Request(method: "POST", path: "/", body: Array(0..<25)))
        var frames = server.read(core.takeOutput())
        #expect(frames.count == 2 && frames.last == F.data(1, Array(0..<10), end: false))
        _ = core.receive(F.windowUpdate(1, 10).serialized)
        frames = server.read(core.takeOutput())
        #expect(frames == [F.data(1, Array(10..<20), end: false)])
        // §6.9.2: lowering SETTINGS_INITIAL_WINDOW_SIZE by 5 makes the window -5; 10 more leaves 5.
        _ = core.receive(F.settings([(F.initialWindowSize, 5)]).serialized)
        _ = core.receive(F.windowUpdate(1, 10).serialized)
        frames = server.read(core.takeOutput())
        #expect(frames == [F.settingsAck, F.data(1, Array(20..<25))])
    }

    @Test func connectionWindowLimitsEveryStream() {
        let (core, server) = Self.connected([(F.initialWindowSize, 100_000)])
        _ = core.submit(1, HTTP2Request(method: "POST", path: "/", body: [UInt8](repeating: 1, count: 70_000)))
        let sent = server.read(core.takeOutput()).filter { $0.type == 0 }.reduce(0) { $0 + $1.payload.count }
        #expect(sent == 65_535)
        _ = core.receive(F.windowUpdate(0, 10_000).serialized)
        let rest = server.read(core.takeOutput())
        #expect(rest.map(\.payload.count) == [70_000 - 65_535])
    }

    @Test func receivedDataIsAcknowledgedAndWindowsEnforced() {
        var options = Self.options
        options.receiveWindow = 100
        let (core, server) = Self.connected(options: options)
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = core.submit(2, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        _ = core.receive(server.response(1) + F.data(1, [UInt8](repeating: 7, count: 60), end: false).serialized)
        #expect(server.read(core.takeOutput()) == [F.windowUpdate(1, 60)])
        _ = core.receive(server.response(3))
        let events = describe(core.receive(F.data(3, [UInt8](repeating: 7, count: 101)).serialized))
        #expect(events.count == 1 && events[0].hasPrefix("failure 2 HTTP/2 stream 3 error FLOW_CONTROL_ERROR"))
        #expect(server.read(core.takeOutput()) == [F.rstStream(3, .flowControlError)])
    }

    @Test func pingIsAnsweredWithTheSamePayload() {
        let (core, server) = Self.connected()
        _ = core.receive(F.ping(0xDEAD_BEEF).serialized + F.ping(1, ack: true).serialized)
        #expect(server.read(core.takeOutput()) == [F.ping(0xDEAD_BEEF, ack: true)])
    }

    @Test func goAwayRetriesUnprocessedStreamsAndClosesWhenDrained() {
        let (core, server) = Self.connected()
        for id in 1...3 as ClosedRange<UInt64> { _ = core.submit(id, HTTP2Request(path: "/")) }
        _ = server.read(core.takeOutput())
        let events = core.receive(F.goAway(lastStreamID: 1, .noError).serialized)
        #expect(describe(events) == ["retry 2", "retry 3"])
        #expect(!core.acceptsRequests)
        #expect(describe(core.submit(4, HTTP2Request(path: "/"))) == ["retry 4"])
        #expect(describe(core.receive(server.response(1, endStream: true))) == ["response 1 200 ", "close"])
    }

    @Test func refusedStreamIsRetriedOtherResetsFail() {
        let (core, server) = Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = core.submit(2, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        #expect(describe(core.receive(F.rstStream(1, .refusedStream).serialized)) == ["retry 1"])
        #expect(describe(core.receive(F.rstStream(3, .internalError).serialized))
                == ["failure 2 stream reset by the server: INTERNAL_ERROR"])
    }

    @Test func malformedFrameEndsTheConnectionWithGoAway() {
        let (core, server) = Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        let events = describe(core.receive([0, 0, 7, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7]))  // PING of 7 octets
        #expect(events.count == 2 && events[0].hasPrefix("failure 1 HTTP/2 connection error FRAME_SIZE_ERROR") && events.last == "close")
        #expect(server.read(core.takeOutput()).first?.goAwayCode == .frameSizeError)
        #expect(describe(core.receive(F.ping(1).serialized)).isEmpty)
    }

    /// §8.4: we sent SETTINGS_ENABLE_PUSH = 0; once the server acknowledged it, a push is a
    /// connection error.
    @Test func pushPromiseIsAProtocolError() {
        let (core, server) = Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        let events = describe(core.receive(F.pushPromise(1, promised: 2, block: [0x82]).serialized))
        #expect(events.last == "close")
        #expect(events.first?.hasPrefix("failure 1 HTTP/2 connection error PROTOCOL_ERROR") == true)
        #expect(server.read(core.takeOutput()).first?.goAwayCode == .protocolError)
    }

    /// Before the acknowledgement nghttp2 resets the promised stream and the request carries on.
    @Test func pushBeforeTheSettingsAckIsRefused() {
        let (core, server) = Self.connected(acknowledge: false)
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        #expect(describe(core.receive(F.pushPromise(1, promised: 2, block: [0x82]).serialized)).isEmpty)
        #expect(server.read(core.takeOutput()).map { "\($0.type) \($0.streamID)" } == ["3 2"])  // RST_STREAM
        #expect(describe(core.receive(server.response(1, endStream: true))) == ["response 1 200 "])
    }

    @Test func informationalResponsesAndTrailers() {
        let (core, server) = Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        #expect(describe(core.receive(server.response(1, status: 100))).isEmpty)
        _ = core.receive(server.response(1, fields: [("x-a", "1")]) + F.data(1, [65], end: false).serialized)
        let trailers = server.encode([("x-trailer", "t")])
        var response: HTTP2Response?
        for event in core.receive(F.headers(1, trailers, end: true).serialized) {
            if case .response(_, let r) = event { response = r }
        }
        #expect(response?.status == 200 && response?.bodyText == "A")
        #expect(response?.headers.map { "\($0.name)=\($0.value)" } == ["x-a=1", "x-trailer=t"])
    }

    @Test func responseWithoutStatusOrTooLargeFailsTheStream() {
        var options = Self.options
        options.maxResponseBodyBytes = 4
        let (core, server) = Self.connected(options: options)
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = core.submit(2, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        let events = describe(core.receive(F.headers(1, server.encode([("x", "y")]), end: true).serialized))
        #expect(events.count == 1 && events[0].hasPrefix("failure 1 HTTP/2 stream 1 error PROTOCOL_ERROR"))
        #expect(describe(core.receive(server.response(3) + F.data(3, [1, 2, 3, 4, 5]).serialized))
                == ["failure 2 response body exceeds 4 octets"])
        #expect(server.read(core.takeOutput()) == [F.rstStream(1, .protocolError), F.rstStream(3, .cancel)])
        #expect(core.acceptsRequests)
    }

    @Test func cancelResetsTheStream() {
        let (core, server) = Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/slow"))
        _ = server.read(core.takeOutput())
        _ = core.cancel(1)
        #expect(server.read(core.takeOutput()) == [F.rstStream(1, .cancel)])
        // A late answer for the cancelled stream is decoded (HPACK stays in step) and dropped.
        #expect(describe(core.receive(server.response(1) + F.data(1, [1]).serialized)).isEmpty)
        _ = core.submit(2, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        #expect(describe(core.receive(server.response(3, endStream: true))) == ["response 2 200 "])
    }

    @Test func largeHeaderBlocksUseContinuation() {
        let (core, server) = Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/", headers: [("x-big", String(repeating: "v", count: 40_000))]))
        let types = server.read(core.takeOutput()).map(\.type)
        #expect(types == [1, 9, 9])  // HEADERS, CONTINUATION, CONTINUATION (16 KiB frames)
    }

    /// RFC 7541 §5.1 integer with an N-bit prefix.
    static func integer(_ value: Int, prefixBits: Int, flags: UInt8) -> [UInt8] {
        let max = (1 << prefixBits) - 1
        guard value >= max else { return [flags | UInt8(value)] }
        var out = [flags | UInt8(max)]
        var rest = value - max
        while rest >= 128 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
        return out
    }

    /// An HPACK bomb: one 4 KB field added to the table, then indexed 16,000 times (64 MB of fields
    /// from 20 KB of block). nghttp2 does not bound the list; the core's on_header limit resets the
    /// stream, the connection stays usable, and what the core holds never exceeds the limit.
    @Test func hpackBombResetsTheStreamAndMemoryStaysBounded() {
        let (core, server) = Self.connected()
        _ = core.submit(1, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        // :status 200 (static index 8), "x: a…" (4,000 octets) with incremental indexing, then index 62.
        let block = [0x88, 0x40, 1, UInt8(ascii: "x")] + Self.integer(4000, prefixBits: 7, flags: 0)
            + [UInt8](repeating: UInt8(ascii: "a"), count: 4000) + [UInt8](repeating: 0xBE, count: 16_000)
        var bytes: [UInt8] = []
        let pieces = stride(from: 0, to: block.count, by: 16_384).map { Array(block[$0..<min($0 + 16_384, block.count)]) }
        for (index, piece) in pieces.enumerated() {
            bytes += (index == 0 ? F.headers(1, piece, endHeaders: pieces.count == 1)
                                 : F.continuation(1, piece, endHeaders: index == pieces.count - 1)).serialized
        }
        var events: [String] = []
        var mostBuffered = 0
        for start in stride(from: 0, to: bytes.count, by: 1024) {
            events += describe(core.receive(bytes[start..<min(start + 1024, bytes.count)]))
            mostBuffered = max(mostBuffered, core.bufferedBytes)
        }
        #expect(events.count == 1 && events[0].hasPrefix("failure 1 response header list of")
                && events[0].hasSuffix("octets is too large"))
        #expect(mostBuffered <= Self.options.maxHeaderListSize)
        #expect(server.read(core.takeOutput()) == [F.rstStream(1, .internalError)])
        // The connection, and HPACK, stay in step: the next request is answered.
        #expect(core.acceptsRequests)
        _ = core.submit(2, HTTP2Request(path: "/"))
        _ = server.read(core.takeOutput())
        #expect(describe(core.receive(F.headers(3, [0x88, 0xBE], end: true).serialized)) == ["response 2 200 "])
    }
}
