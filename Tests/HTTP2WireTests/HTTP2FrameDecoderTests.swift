import Testing
@testable import HTTP2Wire

@Suite struct HTTP2FrameDecoderTests {
    private func drain(_ decoder: inout HTTP2FrameDecoder) throws -> [HTTP2Frame] {
        var frames: [HTTP2Frame] = []
        while let frame = try decoder.next() { frames.append(frame) }
        return frames
    }

    @Test func framesSplitAcrossReadsOneByteAtATime() throws {
        let frames = [HTTP2Frame(streamID: 0, payload: .settings([HTTP2Setting(.maxFrameSize, 20_000)])),
                      HTTP2Frame(streamID: 1, payload: .data(Array(repeating: 7, count: 300), endStream: true, padding: nil)),
                      HTTP2Frame(streamID: 0, payload: .ping(9, ack: false))]
        let bytes = frames.flatMap(\.serialized)
        var decoder = HTTP2FrameDecoder()
        var out: [HTTP2Frame] = []
        for byte in bytes {
            decoder.append([byte])
            out += try drain(&decoder)
        }
        #expect(out == frames)
        #expect(decoder.bufferedCount == 0)
    }

    @Test func continuationFramesAreJoined() throws {
        let block = (0..<100).map { UInt8($0) }
        let split = HTTP2Frame.headerFrames(streamID: 5, headerBlock: block, endStream: true, maxFrameSize: 30)
        #expect(split.count == 4)
        guard case .headers(let first) = split[0].payload else { Issue.record("not HEADERS"); return }
        #expect(first.endStream && !first.endHeaders && first.headerBlock.count == 30)
        var decoder = HTTP2FrameDecoder()
        decoder.append(split.flatMap(\.serialized))
        let frames = try drain(&decoder)
        #expect(frames == [HTTP2Frame(streamID: 5, payload: .headers(HTTP2HeadersPayload(headerBlock: block, endStream: true)))])
    }

    @Test func interleavedFrameInsideAFieldBlockIsAProtocolError() throws {
        var decoder = HTTP2FrameDecoder()
        decoder.append(HTTP2Frame(streamID: 1, payload: .headers(HTTP2HeadersPayload(headerBlock: [0x82], endHeaders: false))).serialized)
        decoder.append(HTTP2Frame(streamID: 0, payload: .ping(1, ack: false)).serialized)
        #expect(throws: HTTP2Error.connection(.protocolError, "expected CONTINUATION of stream 1")) { try decoder.next() }
    }

    @Test func continuationOfAnotherStreamIsAProtocolError() throws {
        var decoder = HTTP2FrameDecoder()
        decoder.append(HTTP2Frame(streamID: 1, payload: .headers(HTTP2HeadersPayload(headerBlock: [0x82], endHeaders: false))).serialized)
        decoder.append(HTTP2Frame(streamID: 3, payload: .continuation(headerBlock: [0x84], endHeaders: true)).serialized)
        #expect(throws: HTTP2Error.self) { try decoder.next() }
    }

    @Test func strayContinuationIsAProtocolError() throws {
        var decoder = HTTP2FrameDecoder()
        decoder.append(HTTP2Frame(streamID: 1, payload: .continuation(headerBlock: [0x84], endHeaders: true)).serialized)
        #expect(throws: HTTP2Error.connection(.protocolError, "CONTINUATION without an open field block")) { try decoder.next() }
    }

    @Test func oversizeFrameIsAFrameSizeError() throws {
        var decoder = HTTP2FrameDecoder(maxFrameSize: 16_384)
        decoder.append([0, 0x40, 0x01, 0, 0, 0, 0, 0, 1])  // 16,385 octets announced
        #expect(throws: HTTP2Error.connection(.frameSizeError, "frame of 16385 octets exceeds 16384")) { try decoder.next() }
    }

    @Test func fieldBlockLimit() throws {
        var decoder = HTTP2FrameDecoder(maxHeaderBlockSize: 50)
        for frame in HTTP2Frame.headerFrames(streamID: 1, headerBlock: Array(repeating: 0x82, count: 60), endStream: false,
                                             maxFrameSize: 20) {
            decoder.append(frame.serialized)
        }
        #expect(throws: HTTP2Error.connection(.enhanceYourCalm, "field block of 60 octets exceeds 50")) { try drain(&decoder) }
    }

    @Test func streamErrorLeavesTheDecoderUsable() throws {
        var decoder = HTTP2FrameDecoder()
        decoder.append([0, 0, 4, 8, 0, 0, 0, 0, 1, 0, 0, 0, 0])  // WINDOW_UPDATE of 0 on stream 1
        decoder.append(HTTP2Frame(streamID: 0, payload: .ping(5, ack: true)).serialized)
        #expect(throws: HTTP2Error.stream(1, .protocolError, "WINDOW_UPDATE of 0")) { try decoder.next() }
        #expect(try decoder.next() == HTTP2Frame(streamID: 0, payload: .ping(5, ack: true)))
    }

    @Test func unknownFrameTypesPassThrough() throws {
        var decoder = HTTP2FrameDecoder()
        decoder.append([0, 0, 1, 0x42, 0xFF, 0, 0, 0, 3, 0x11])
        #expect(try decoder.next() == HTTP2Frame(streamID: 3, payload: .unknown(type: 0x42, flags: 0xFF, payload: [0x11])))
    }
}
