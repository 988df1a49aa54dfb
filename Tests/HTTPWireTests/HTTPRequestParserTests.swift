import Testing
@testable import HTTPWire

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

private func parseAll(_ input: [UInt8], limits: HTTPLimits = HTTPLimits()) throws -> [HTTPRequest] {
    var parser = HTTPRequestParser(limits: limits)
    parser.append(input)
    var out: [HTTPRequest] = []
    while let request = try parser.next() { out.append(request) }
    return out
}

@Suite struct HTTPRequestParserTests {
    @Test func simpleGet() throws {
        let requests = try parseAll(bytes("GET /rooms?limit=5&name=a%20b+c HTTP/1.1\r\nHost: x\r\nX-Foo:  bar \r\n\r\n"))
        #expect(requests.count == 1)
        let r = requests[0]
        #expect(r.method == "GET")
        #expect(r.path == "/rooms")
        #expect(r.query == "limit=5&name=a%20b+c")
        #expect(r.queryValue("name") == "a b c")
        #expect(r.headers["x-foo"] == "bar")
        #expect(r.headers["HOST"] == "x")
        #expect(r.version == .http1_1)
        #expect(r.keepAlive)
        #expect(r.body.isEmpty)
    }

    @Test func contentLengthBodyByteByByte() throws {
        let input = bytes("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        var parser = HTTPRequestParser()
        var got: HTTPRequest?
        for (i, byte) in input.enumerated() {
            parser.append([byte])
            let r = try parser.next()
            if i < input.count - 1 { #expect(r == nil) } else { got = r }
        }
        #expect(got?.bodyText == "hello")
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let input = bytes("POST /u HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: y\r\n\r\n")
        // Every split point must give the same result.
        for split in 0...input.count {
            var parser = HTTPRequestParser()
            parser.append(input[..<split])
            var request = try parser.next()
            parser.append(input[split...])
            if request == nil { request = try parser.next() }
            #expect(request?.bodyText == "hello world", "split \(split)")
        }
    }

    @Test func pipelinedRequests() throws {
        let input = bytes("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nokGET /3 HTTP/1.0\r\n\r\n")
        let requests = try parseAll(input)
        #expect(requests.map(\.path) == ["/1", "/2", "/3"])
        #expect(requests[1].bodyText == "ok")
        #expect(!requests[2].keepAlive)
    }

    @Test func bareLineFeedsAndLeadingBlankLines() throws {
        let requests = try parseAll(bytes("\r\n\nGET / HTTP/1.1\nHost: x\n\n"))
        #expect(requests.count == 1)
    }

    @Test func expectContinue() throws {
        var parser = HTTPRequestParser()
        parser.append(bytes("PUT /f HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"))
        #expect(try parser.next() == nil)
        let first = parser.takeContinueRequest()
        let second = parser.takeContinueRequest()
        #expect(first)
        #expect(!second)
        parser.append(bytes("abc"))
        #expect(try parser.next()?.bodyText == "abc")
    }

    @Test func headerLimitGives431() {
        let limits = HTTPLimits(maxHeaderBytes: 64)
        var parser = HTTPRequestParser(limits: limits)
        parser.append(bytes("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 100)))
        #expect(throws: HTTPParseError.headersTooLarge) { try parser.next() }
        #expect(HTTPParseError.headersTooLarge.status == 431)
        // The parser stays failed.
        #expect(throws: HTTPParseError.headersTooLarge) { try parser.next() }
    }

    @Test func bodyLimitGives413BeforeReadingBody() {
        let limits = HTTPLimits(maxBodyBytes: 10)
        #expect(throws: HTTPParseError.bodyTooLarge) {
            try parseAll(bytes("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n"), limits: limits)
        }
        #expect(throws: HTTPParseError.bodyTooLarge) {
            try parseAll(bytes("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n"), limits: limits)
        }
        #expect(throws: HTTPParseError.bodyTooLarge) {
            try parseAll(bytes("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n"), limits: limits)
        }
    }

    static let malformed: [(String, HTTPParseError)] = [
        ("\u{01}\u{02}garbage\r\n\r\n", .badStartLine),
        ("GET\r\n\r\n", .badStartLine),
        ("GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", .badStartLine),
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", .unsupportedVersion),
        ("GET / HTTX/1.1\r\nHost: x\r\n\r\n", .badStartLine),
        ("GET / HTTP/1.1\r\n\r\n", .badHeader),  // no Host
        ("GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n", .badHeader),
        ("GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", .badHeader),
        ("GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n folded\r\n\r\n", .badHeader),
        ("GET / HTTP/1.1\r\nHost: x\r\nA: b\u{00}c\r\n\r\n", .badHeader),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", .badContentLength),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 2\r\n\r\n", .badContentLength),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", .conflictingFraming),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .badChunk),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .badChunk),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY", .badChunk),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", .badChunk),
    ]

    @Test(arguments: malformed)
    func malformedInputIsRejected(_ input: String, _ expected: HTTPParseError) {
        #expect(throws: expected) { try parseAll(bytes(input)) }
    }

    @Test func randomGarbageNeverCrashes() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<300, using: &rng)
            var input = (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng) { input = bytes("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n") + input }
            _ = try? parseAll(input, limits: HTTPLimits(maxHeaderBytes: 256, maxBodyBytes: 256))
        }
    }

    @Test func requestRoundTrip() throws {
        var request = HTTPRequest(method: "PUT", target: "/x?y=1", headers: ["Host": "h", "X-A": "1"], body: bytes("data"))
        request.headers.add("X-A", "2")
        let parsed = try parseAll(request.serialized)
        #expect(parsed.count == 1)
        #expect(parsed[0].method == "PUT")
        #expect(parsed[0].target == "/x?y=1")
        #expect(parsed[0].headers.values("x-a") == ["1", "2"])
        #expect(parsed[0].body == bytes("data"))
    }
}
