import Testing
@testable import WebSocketWire

private func frames(_ input: [UInt8], role: WebSocketFrameParser.Role, max: Int = 1 << 20) throws -> [WebSocketFrame] {
    var parser = WebSocketFrameParser(role: role, maxFrameBytes: max)
    parser.append(input)
    var out: [WebSocketFrame] = []
    while let frame = try parser.next() { out.append(frame) }
    return out
}

/// RFC 6455 §5.7 examples.
@Suite struct RFC6455Section57Tests {
    @Test func unmaskedText() throws {
        let f = try frames([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], role: .client)
        #expect(f == [WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))])
    }

    @Test func maskedText() throws {
        let f = try frames([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58], role: .server)
        #expect(f.first?.payload == Array("Hello".utf8))
        // The encoder produces the same bytes with the same key.
        #expect(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8), maskingKey: 0x37fa213d).serialized
            == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
    }

    @Test func fragmentedText() throws {
        var reader = WebSocketReader(role: .client)
        reader.append([0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f])
        #expect(try reader.next() == .message(.text("Hello")))
    }

    @Test func pingAndPong() throws {
        #expect(try frames([0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], role: .client).first?.opcode == .ping)
        let pong = try frames([0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58], role: .server)
        #expect(pong.first == WebSocketFrame(opcode: .pong, payload: Array("Hello".utf8)))
    }

    @Test func extendedLengths() throws {
        let f256 = try frames([0x82, 0x7E, 0x01, 0x00] + [UInt8](repeating: 7, count: 256), role: .client)
        #expect(f256.first?.payload.count == 256)
        let big = [UInt8](repeating: 1, count: 65536)
        let encoded = WebSocketFrame(opcode: .binary, payload: big).serialized
        #expect(Array(encoded.prefix(10)) == [0x82, 0x7F, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00])
        #expect(try frames(encoded, role: .client).first?.payload == big)
    }
}

@Suite struct WebSocketFrameParserTests {
    @Test func oneGigabyteHeaderRejectedWith1009WithoutAllocation() throws {
        // FIN|binary, MASK|127, length 2^30, no payload follows.
        let header: [UInt8] = [0x82, 0xFF, 0, 0, 0, 0, 0x40, 0, 0, 0]
        var parser = WebSocketFrameParser(role: .server, maxFrameBytes: 1 << 20)
        parser.append(header)
        do {
            _ = try parser.next()
            Issue.record("expected messageTooBig")
        } catch {
            #expect(error == .messageTooBig(announced: 1 << 30, limit: 1 << 20))
            #expect(error.closeCode == .messageTooBig)
            #expect(error.closeCode.rawValue == 1009)
        }
        // Only the 10 header bytes were ever buffered.
        #expect(parser.bufferedByteCount == 10)
    }

    static let violations: [([UInt8], WebSocketFrameParser.Role, WebSocketProtocolError)] = [
        ([0x83, 0x80, 1, 2, 3, 4], .server, .unknownOpcode(3)),
        ([0x8B, 0x80, 1, 2, 3, 4], .server, .unknownOpcode(0xB)),
        ([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], .server, .maskingViolation),  // unmasked client frame
        ([0x81, 0x85, 1, 2, 3, 4, 0, 0, 0, 0, 0], .client, .maskingViolation),      // masked server frame
        ([0x09, 0x80, 1, 2, 3, 4], .server, .invalidControlFrame),                  // fragmented ping
        ([0x89, 0xFE, 0x00, 0x7E], .server, .invalidControlFrame),                  // 126-byte ping
        ([0xC1, 0x80, 1, 2, 3, 4], .server, .reservedBitsSet),
        ([0x82, 0xFE, 0x00, 0x05], .server, .invalidLength),                        // non-minimal 16-bit length
        ([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0], .server, .invalidLength),         // 64-bit MSB set
    ]

    @Test(arguments: violations)
    func protocolViolations(_ input: [UInt8], _ role: WebSocketFrameParser.Role, _ expected: WebSocketProtocolError) {
        #expect(throws: expected) { try frames(input, role: role) }
        #expect(expected.closeCode == .protocolError)
    }

    @Test func incrementalByteByByte() throws {
        let payload = Array("incremental payload".utf8)
        let encoded = WebSocketFrame(opcode: .text, payload: payload, maskingKey: 0xA1B2C3D4).serialized
        var parser = WebSocketFrameParser(role: .server)
        var result: WebSocketFrame?
        for byte in encoded {
            #expect(result == nil)
            parser.append([byte])
            result = try parser.next()
        }
        #expect(result?.payload == payload)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func randomGarbageNeverCrashes() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let input = (0..<Int.random(in: 0..<64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            var reader = WebSocketReader(role: Bool.random(using: &rng) ? .server : .client, maxMessageBytes: 1024)
            reader.append(input)
            while (try? reader.next()) != nil {}
        }
    }
}
