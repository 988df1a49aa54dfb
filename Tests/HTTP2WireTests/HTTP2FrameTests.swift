import Testing
@testable import HTTP2Wire

/// RFC 9113 frames: round trips of every type, the published layout, and malformed frames with the
/// error code and scope the RFC assigns.
@Suite struct HTTP2FrameTests {
    static let frames: [HTTP2Frame] = [
        HTTP2Frame(streamID: 1, payload: .data(Array("hello".utf8), endStream: true, padding: nil)),
        HTTP2Frame(streamID: 3, payload: .data([1, 2, 3], endStream: false, padding: 4)),
        HTTP2Frame(streamID: 5, payload: .data([], endStream: true, padding: 0)),
        HTTP2Frame(streamID: 1, payload: .headers(HTTP2HeadersPayload(headerBlock: [0x82, 0x84], endStream: true))),
        HTTP2Frame(streamID: 7, payload: .headers(HTTP2HeadersPayload(
            headerBlock: [0x88], endStream: false, endHeaders: false,
            priority: HTTP2Priority(exclusive: true, dependency: 3, weight: 200), padding: 2))),
        HTTP2Frame(streamID: 9, payload: .priority(HTTP2Priority(exclusive: false, dependency: 1, weight: 15))),
        HTTP2Frame(streamID: 1, payload: .rstStream(.cancel)),
        HTTP2Frame(streamID: 0, payload: .settings([HTTP2Setting(.enablePush, 0), HTTP2Setting(.initialWindowSize, 1 << 20),
                                                   HTTP2Setting(HTTP2SettingID(rawValue: 0x99), 7)])),
        HTTP2Frame(streamID: 0, payload: .settings([])),
        HTTP2Frame(streamID: 0, payload: .settingsAck),
        HTTP2Frame(streamID: 1, payload: .pushPromise(HTTP2PushPromisePayload(promisedStreamID: 2, headerBlock: [0x82],
                                                                               endHeaders: true, padding: 1))),
        HTTP2Frame(streamID: 0, payload: .ping(0x0102_0304_0506_0708, ack: false)),
        HTTP2Frame(streamID: 0, payload: .ping(42, ack: true)),
        HTTP2Frame(streamID: 0, payload: .goAway(lastStreamID: 7, errorCode: .enhanceYourCalm, debugData: Array("calm".utf8))),
        HTTP2Frame(streamID: 0, payload: .windowUpdate(increment: 0x7FFF_FFFF)),
        HTTP2Frame(streamID: 3, payload: .windowUpdate(increment: 1)),
        HTTP2Frame(streamID: 7, payload: .continuation(headerBlock: [0x84], endHeaders: true)),
        HTTP2Frame(streamID: 11, payload: .unknown(type: 0xEE, flags: 0xA5, payload: [9, 9])),
    ]

    @Test(arguments: frames)
    func roundTrip(frame: HTTP2Frame) throws {
        let bytes = frame.serialized
        let header = try #require(HTTP2FrameHeader(parsing: bytes))
        #expect(header.length == bytes.count - 9 && header.type == frame.type && header.streamID == frame.streamID)
        #expect(try HTTP2Frame(header: header, payload: bytes[9...]) == frame)
    }

    /// §6.5 SETTINGS ack, §6.7 PING and §6.9 WINDOW_UPDATE octet for octet.
    @Test func knownLayouts() {
        #expect(HTTP2Frame(streamID: 0, payload: .settingsAck).serialized == [0, 0, 0, 4, 1, 0, 0, 0, 0])
        #expect(HTTP2Frame(streamID: 0, payload: .ping(1, ack: true)).serialized == [0, 0, 8, 6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(HTTP2Frame(streamID: 3, payload: .windowUpdate(increment: 0x1_0000)).serialized
                == [0, 0, 4, 8, 0, 0, 0, 0, 3, 0, 1, 0, 0])
        #expect(HTTP2Frame(streamID: 1, payload: .data([0xAA], endStream: true, padding: 1)).serialized
                == [0, 0, 3, 0, 0x9, 0, 0, 0, 1, 1, 0xAA, 0])
        #expect(HTTP2ConnectionPreface.bytes.count == 24)
    }

    @Test func reservedBitIsIgnored() throws {
        let bytes: [UInt8] = [0, 0, 4, 8, 0, 0x80, 0, 0, 5, 0x80, 0, 0, 1]
        let frame = try HTTP2Frame(header: #require(HTTP2FrameHeader(parsing: bytes)), payload: bytes[9...])
        #expect(frame == HTTP2Frame(streamID: 5, payload: .windowUpdate(increment: 1)))
    }

    static let malformed: [(String, [UInt8], HTTP2Error.Scope, HTTP2ErrorCode)] = [
        ("DATA on stream 0", [0, 0, 1, 0, 0, 0, 0, 0, 0, 0xAA], .connection, .protocolError),
        ("DATA padding fills payload", [0, 0, 2, 0, 0x8, 0, 0, 0, 1, 2, 0], .connection, .protocolError),
        ("DATA padded and empty", [0, 0, 0, 0, 0x8, 0, 0, 0, 1], .connection, .frameSizeError),
        ("HEADERS on stream 0", [0, 0, 1, 1, 0x4, 0, 0, 0, 0, 0x82], .connection, .protocolError),
        ("HEADERS short priority", [0, 0, 3, 1, 0x24, 0, 0, 0, 1, 0, 0, 0], .connection, .frameSizeError),
        ("PRIORITY of 4 octets", [0, 0, 4, 2, 0, 0, 0, 0, 3, 0, 0, 0, 1], .stream(3), .frameSizeError),
        ("PRIORITY on itself", [0, 0, 5, 2, 0, 0, 0, 0, 3, 0, 0, 0, 3, 16], .stream(3), .protocolError),
        ("RST_STREAM on stream 0", [0, 0, 4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 8], .connection, .protocolError),
        ("RST_STREAM of 3 octets", [0, 0, 3, 3, 0, 0, 0, 0, 1, 0, 0, 8], .connection, .frameSizeError),
        ("SETTINGS on stream 1", [0, 0, 0, 4, 0, 0, 0, 0, 1], .connection, .protocolError),
        ("SETTINGS of 5 octets", [0, 0, 5, 4, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], .connection, .frameSizeError),
        ("SETTINGS ack with payload", [0, 0, 6, 4, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0], .connection, .frameSizeError),
        ("PING of 7 octets", [0, 0, 7, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], .connection, .frameSizeError),
        ("PING on stream 1", [0, 0, 8, 6, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], .connection, .protocolError),
        ("GOAWAY of 4 octets", [0, 0, 4, 7, 0, 0, 0, 0, 0, 0, 0, 0, 1], .connection, .frameSizeError),
        ("GOAWAY on stream 1", [0, 0, 8, 7, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], .connection, .protocolError),
        ("WINDOW_UPDATE of 0 on a stream", [0, 0, 4, 8, 0, 0, 0, 0, 1, 0, 0, 0, 0], .stream(1), .protocolError),
        ("WINDOW_UPDATE of 0 on stream 0", [0, 0, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0], .connection, .protocolError),
        ("WINDOW_UPDATE of 5 octets", [0, 0, 5, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0], .connection, .frameSizeError),
        ("PUSH_PROMISE too short", [0, 0, 2, 5, 0x4, 0, 0, 0, 1, 0, 0], .connection, .frameSizeError),
        ("CONTINUATION on stream 0", [0, 0, 1, 9, 0x4, 0, 0, 0, 0, 0x82], .connection, .protocolError),
    ]

    @Test(arguments: malformed)
    func malformedFrames(name: String, bytes: [UInt8], scope: HTTP2Error.Scope, code: HTTP2ErrorCode) throws {
        var decoder = HTTP2FrameDecoder()
        decoder.append(bytes)
        do {
            let frame = try decoder.next()
            Issue.record("\(name): parsed as \(String(describing: frame))")
        } catch {
            #expect(error.scope == scope, "\(name)")
            #expect(error.code == code, "\(name): \(error)")
        }
    }

    @Test func settingsValidation() throws {
        var settings = HTTP2Settings()
        try settings.apply([HTTP2Setting(.maxConcurrentStreams, 5), HTTP2Setting(.initialWindowSize, 1000),
                            HTTP2Setting(.maxFrameSize, 1 << 20), HTTP2Setting(HTTP2SettingID(rawValue: 77), 1)])
        #expect(settings.maxConcurrentStreams == 5 && settings.initialWindowSize == 1000 && settings.maxFrameSize == 1 << 20)
        #expect(throws: HTTP2Error.connection(.protocolError, "SETTINGS_ENABLE_PUSH is 2")) {
            try settings.apply([HTTP2Setting(.enablePush, 2)])
        }
        #expect(throws: HTTP2Error.connection(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE is 2147483648")) {
            try settings.apply([HTTP2Setting(.initialWindowSize, 1 << 31)])
        }
        for size: UInt32 in [16_383, 1 << 24] {
            #expect(throws: HTTP2Error.self) { try settings.apply([HTTP2Setting(.maxFrameSize, size)]) }
        }
        var mine = HTTP2Settings()
        mine.enablePush = false
        mine.maxHeaderListSize = 65_536
        #expect(mine.nonDefaultParameters == [HTTP2Setting(.enablePush, 0), HTTP2Setting(.maxHeaderListSize, 65_536)])
    }
}
