import Testing
@testable import SIPWire

/// Stream framing (RFC 3261 §18.3), RFC 5626 §3.5.1 keep-alives, the 64 KB bound, and the
/// datagram rules of §18.3.
@Suite struct SIPStreamFramerTests {
    static let options = optionsRequest()

    /// An OPTIONS request with a 5-byte body and the Content-Length given.
    static func optionsRequest(contentLength: String = "5") -> String {
        "OPTIONS sip:carol@chicago.com SIP/2.0\r\nVia: SIP/2.0/TCP pc33.atlanta.com;branch=z9hG4bKhjhs8ass877\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:carol@chicago.com>\r\nFrom: Alice <sip:alice@atlanta.com>;tag=1928301774\r\n"
            + "Call-ID: a84b4c76e66710\r\nCSeq: 63104 OPTIONS\r\nContent-Type: text/plain\r\nContent-Length: \(contentLength)\r\n\r\nhello"
    }

    /// Two messages with pings between them, fed one byte at a time, come out whole and in order.
    @Test func bytesArrivingOneByOne() throws {
        let stream = Array(("\r\n\r\n" + Self.options + "\r\n\r\n" + Self.options).utf8)
        var framer = SIPStreamFramer(role: .server)
        var events: [SIPStreamFramer.Event] = []
        for byte in stream {
            framer.append([byte])
            while let event = try framer.next() { events.append(event) }
        }
        #expect(events.count == 4)
        guard events.count == 4, case .message(let first) = events[1], case .message(let second) = events[3] else { return }
        #expect(events[0] == .ping && events[2] == .ping)
        #expect(first.body == Array("hello".utf8) && first == second)
        #expect(first.request?.method == .options)
        #expect(framer.bufferedCount == 0)
    }

    @Test func wholeStreamAtOnce() throws {
        var framer = SIPStreamFramer(role: .server)
        let bytes = Array(Self.options.utf8)
        framer.append(bytes + bytes + bytes.prefix(40))
        #expect(try framer.next()?.message?.body == Array("hello".utf8))
        #expect(try framer.next()?.message != nil)
        #expect(try framer.next() == nil)
        #expect(framer.bufferedCount == 40)
        framer.append(bytes.dropFirst(40))
        #expect(try framer.next()?.message?.callID == "a84b4c76e66710")
    }

    /// RFC 5626 §3.5.1: a server answers CRLFCRLF; a client sees each CRLF as a pong. A server
    /// ignores a lone CRLF before a message (RFC 3261 §7.5).
    @Test func rfc5626KeepAlives() throws {
        var client = SIPStreamFramer(role: .client)
        client.append(Array("\r\n".utf8))
        #expect(try client.next() == .pong)
        #expect(try client.next() == nil)

        var server = SIPStreamFramer(role: .server)
        server.append(Array("\r\n".utf8))
        #expect(try server.next() == nil)  // may be the first half of a ping
        server.append(Array("\r".utf8))
        #expect(try server.next() == nil)
        server.append(Array("\n".utf8))
        #expect(try server.next() == .ping)
        server.append(Array(("\r\n" + Self.options).utf8))
        #expect(try server.next()?.message != nil)
    }

    @Test func streamWithoutContentLengthIsAnError() throws {
        var framer = SIPStreamFramer(role: .server)
        framer.append(Array("OPTIONS sip:a@b SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\n\r\n".utf8))
        #expect(throws: SIPParseError.invalidContentLength) { try framer.next() }
    }

    /// Over 64 KB without the end of a head, or a Content-Length past the bound: an error the
    /// transport closes on, raised before the bytes are all buffered.
    @Test func boundedBuffer() throws {
        var framer = SIPStreamFramer(role: .server)
        framer.append(Array("OPTIONS sip:a@b SIP/2.0\r\nX-Long: ".utf8))
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 8192)
        var thrown: SIPParseError?
        for _ in 0..<9 where thrown == nil {
            framer.append(chunk)
            do { _ = try framer.next() } catch { thrown = error }
        }
        #expect(thrown == .messageTooLarge(limit: 65_536))
        #expect(thrown?.statusCode == 513)

        var big = SIPStreamFramer(role: .server)
        big.append(Array(Self.optionsRequest(contentLength: "70000").utf8))
        #expect(throws: SIPParseError.messageTooLarge(limit: 65_536)) { try big.next() }

        var small = SIPStreamFramer(role: .server, limits: SIPLimits(maxMessageBytes: 100))
        small.append(Array(Self.options.utf8))
        #expect(throws: SIPParseError.messageTooLarge(limit: 100)) { try small.next() }
    }

    /// RFC 3261 §18.3: in a datagram a missing Content-Length means the rest of the datagram;
    /// one past the end is an error; a datagram over the limit is refused before parsing.
    @Test func section18_3_datagramRules() throws {
        let withoutLength = "MESSAGE sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\r\nFrom: <sip:c@d>;tag=1\r\nTo: <sip:a@b>\r\n"
            + "Call-ID: x\r\nCSeq: 1 MESSAGE\r\n\r\nrest of datagram"
        #expect(try SIPMessage.parse(datagram: Array(withoutLength.utf8)).bodyText == "rest of datagram")
        #expect(try SIPMessage.parse(datagram: Array(Self.optionsRequest(contentLength: "3").utf8)).bodyText == "hel")
        #expect(throws: SIPParseError.bodyTruncated(expected: 6, available: 5)) {
            try SIPMessage.parse(datagram: Array(Self.optionsRequest(contentLength: "6").utf8))
        }
        let huge = [UInt8](repeating: 0x41, count: 65_537)
        #expect(throws: SIPParseError.messageTooLarge(limit: 65_536)) { try SIPMessage.parse(datagram: huge) }
        #expect(throws: SIPParseError.empty) { try SIPMessage.parse(datagram: Array("\r\n\r\n".utf8)) }
        #expect(throws: SIPParseError.incompleteHead) { try SIPMessage.parse(datagram: Array("OPTIONS sip:a@b SIP/2.0".utf8)) }
    }

    @Test func malformedHeadLines() {
        let cases: [(String, SIPParseError)] = [
            ("OPTIONS sip:a@b SIP/2.0\r\nNoColon\r\n\r\n", .invalidHeaderLine(line: 2)),
            ("OPTIONS sip:a@b SIP/2.0\r\n continuation first\r\n\r\n", .invalidHeaderLine(line: 2)),
            ("OPTIONS sip:a@b SIP/2.0\r\nA: b\nC: d\r\n\r\n", .invalidHeaderLine(line: 2)),
            ("OPTIONS sip:a@b SIP/2.0\r\nA: b\rC: d\r\n\r\n", .invalidHeaderLine(line: 2)),
            ("OPTIONS sip:a@b\r\n\r\n", .invalidStartLine),
            ("OPT\u{1}IONS sip:a@b SIP/2.0\r\n\r\n", .invalidMethod),
            ("OPTIONS sip:a@b SIP/2.0.1\r\n\r\n", .invalidStartLine),
            ("SIP/2.0 99 Too Small\r\n\r\n", .invalidStatusCode),
            ("SIP/2.0 2000 Big\r\n\r\n", .invalidStatusCode),
            ("HTTP/1.1 200 OK\r\n\r\n", .invalidStartLine),
            ("OPTIONS sip:a@b SIP/2.0\r\nContent-Length: 1x\r\n\r\n", .invalidContentLength),
        ]
        for (text, error) in cases {
            #expect(throws: error, "\(text.debugDescription)") { try SIPMessage.parse(datagram: Array(text.utf8)) }
        }
    }

    @Test func tooManyHeaders() {
        let text = "OPTIONS sip:a@b SIP/2.0\r\n" + String(repeating: "X-A: b\r\n", count: 257) + "\r\n"
        #expect(throws: SIPParseError.tooManyHeaders(limit: 256)) { try SIPMessage.parse(datagram: Array(text.utf8)) }
    }
}

extension SIPStreamFramer.Event {
    var message: SIPMessage? {
        if case .message(let message) = self { message } else { nil }
    }
}
