import Testing
@testable import WebSocketWire

@Suite struct WebSocketMessageAssemblerTests {
    @Test func reassemblesWithInterleavedPing() throws {
        var a = WebSocketMessageAssembler()
        #expect(try a.push(WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2])) == nil)
        #expect(try a.push(WebSocketFrame(opcode: .ping, payload: [9])) == .ping([9]))  // §5.4: control frames may interleave
        #expect(try a.push(WebSocketFrame(fin: false, opcode: .continuation, payload: [3])) == nil)
        #expect(try a.push(WebSocketFrame(opcode: .continuation, payload: [4])) == .message(.binary([1, 2, 3, 4])))
    }

    @Test func continuationWithoutStart() {
        var a = WebSocketMessageAssembler()
        #expect(throws: WebSocketProtocolError.unexpectedContinuation) {
            try a.push(WebSocketFrame(opcode: .continuation, payload: []))
        }
    }

    @Test func newMessageDuringFragments() throws {
        var a = WebSocketMessageAssembler()
        _ = try a.push(WebSocketFrame(fin: false, opcode: .text, payload: [0x61]))
        #expect(throws: WebSocketProtocolError.expectedContinuation) {
            try a.push(WebSocketFrame(opcode: .text, payload: [0x62]))
        }
    }

    @Test func fragmentedMessageOverLimitIs1009() throws {
        var a = WebSocketMessageAssembler(maxMessageBytes: 4)
        _ = try a.push(WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2, 3]))
        do {
            _ = try a.push(WebSocketFrame(opcode: .continuation, payload: [4, 5]))
            Issue.record("expected messageTooBig")
        } catch {
            #expect(error.closeCode == .messageTooBig)
        }
    }

    @Test func invalidUTF8Is1007() throws {
        var a = WebSocketMessageAssembler()
        for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            do {
                _ = try a.push(WebSocketFrame(opcode: .text, payload: bad))
                Issue.record("accepted \(bad)")
            } catch {
                #expect(error.closeCode == .invalidPayload)
            }
        }
        #expect(try a.push(WebSocketFrame(opcode: .text, payload: Array("κόσμε 🎉".utf8))) == .message(.text("κόσμε 🎉")))
    }

    @Test func closePayloads() throws {
        var a = WebSocketMessageAssembler()
        #expect(try a.push(.close(code: nil)) == .close(code: nil, reason: ""))
        #expect(try a.push(.close(code: WebSocketCloseCode(4001), reason: "bye")) == .close(code: WebSocketCloseCode(4001), reason: "bye"))
        #expect(throws: WebSocketProtocolError.invalidClosePayload) { try a.push(WebSocketFrame(opcode: .close, payload: [0x03])) }
        #expect(throws: WebSocketProtocolError.invalidClosePayload) { try a.push(WebSocketFrame(opcode: .close, payload: [0x03, 0xED])) }  // 1005
        #expect(throws: WebSocketProtocolError.invalidClosePayload) { try a.push(WebSocketFrame(opcode: .close, payload: [0x03, 0xE7])) }  // 999
    }

    @Test func closeReasonIsTruncatedToFitControlFrame() {
        let frame = WebSocketFrame.close(code: .normalClosure, reason: String(repeating: "é", count: 100))
        #expect(frame.payload.count <= 125)
        #expect(UTF8Validator.isValid(frame.payload[2...]))
    }
}

@Suite struct WebSocketHandshakeTests {
    /// RFC 6455 §1.3 example.
    @Test func acceptKeyFromRFC() {
        // SHA-1("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11"), precomputed.
        let digest: [UInt8] = [0xb3, 0x7a, 0x4f, 0x2c, 0xc0, 0x62, 0x4f, 0x16, 0x90, 0xf6,
                               0x46, 0x06, 0xcf, 0x38, 0x59, 0x45, 0xb2, 0xbe, 0xc4, 0xea]
        let value = WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") { input in
            #expect(input == Array("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8))
            return digest
        }
        #expect(value == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func validatesRequests() throws {
        let good: WebSocketHandshake.Fields = [("Host", "x"), ("Upgrade", "WebSocket"), ("Connection", "keep-alive, Upgrade"),
                                               ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13")]
        #expect(try WebSocketHandshake.validateRequest(method: "GET", headers: good) == "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(throws: WebSocketHandshakeError.notGet) { try WebSocketHandshake.validateRequest(method: "POST", headers: good) }
        var badKey = good
        badKey[3] = ("Sec-WebSocket-Key", "short")
        #expect(throws: WebSocketHandshakeError.badKey) { try WebSocketHandshake.validateRequest(method: "GET", headers: badKey) }
        var badVersion = good
        badVersion[4] = ("Sec-WebSocket-Version", "8")
        #expect(throws: WebSocketHandshakeError.unsupportedVersion) {
            try WebSocketHandshake.validateRequest(method: "GET", headers: badVersion)
        }
    }

    /// RFC 6455 §4.1 step 10 / §4.2.2: the offered subprotocols are a comma list, possibly over
    /// several fields; the 101 names the one chosen (RFC 7118 §4: `sip`).
    @Test func offeredSubprotocolsAndTheAnswerNamingOne() {
        let offered: WebSocketHandshake.Fields = [("Sec-WebSocket-Protocol", "chat, SIP"), ("sec-websocket-protocol", "mqtt")]
        #expect(WebSocketHandshake.offers(subprotocol: "sip", headers: offered))
        #expect(WebSocketHandshake.offers(subprotocol: "mqtt", headers: offered))
        #expect(!WebSocketHandshake.offers(subprotocol: "sip", headers: [("Sec-WebSocket-Protocol", "sips, xsip")]))
        #expect(!WebSocketHandshake.offers(subprotocol: "sip", headers: [("Host", "x")]))
        let answer = WebSocketHandshake.responseHeaders(key: "dGhlIHNhbXBsZSBub25jZQ==", subprotocol: "sip") { _ in [0] }
        #expect(answer.last?.name == "Sec-WebSocket-Protocol" && answer.last?.value == "sip")
        #expect(!WebSocketHandshake.responseHeaders(key: "k", sha1: { _ in [0] }).contains { $0.name == "Sec-WebSocket-Protocol" })
    }
}
