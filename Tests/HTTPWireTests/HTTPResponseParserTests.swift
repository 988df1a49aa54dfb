import Testing
@testable import HTTPWire

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct HTTPResponseParserTests {
    @Test func contentLength() throws {
        var parser = HTTPResponseParser()
        parser.append(bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"))
        let r = try parser.next()
        #expect(r?.status == 200)
        #expect(r?.reason == "OK")
        #expect(r?.bodyText == "hi")
    }

    @Test func chunkedAndInterim100() throws {
        var parser = HTTPResponseParser()
        parser.append(bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created Fine\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"))
        let r = try parser.next()
        #expect(r?.status == 201)
        #expect(r?.reason == "Created Fine")
        #expect(r?.bodyText == "abc")
    }

    @Test func untilCloseBodyEndsAtFinish() throws {
        var parser = HTTPResponseParser()
        parser.append(bytes("HTTP/1.0 200 OK\r\n\r\npartial"))
        #expect(try parser.next() == nil)
        #expect(parser.readsUntilClose)
        parser.append(bytes(" body"))
        #expect(try parser.next() == nil)
        #expect(try parser.finish()?.bodyText == "partial body")
    }

    @Test func headAndNoContentHaveNoBody() throws {
        var parser = HTTPResponseParser()
        parser.append(bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"))
        #expect(try parser.next(requestMethod: "HEAD")?.body == [])
        #expect(try parser.next()?.status == 204)
    }

    @Test func truncatedResponseThrows() throws {
        var parser = HTTPResponseParser()
        parser.append(bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"))
        #expect(try parser.next() == nil)
        #expect(throws: HTTPParseError.truncated) { try parser.finish() }
    }

    @Test func badStatusLine() throws {
        var parser = HTTPResponseParser()
        parser.append(bytes("HTTP/1.1 2000 OK\r\n\r\n"))
        #expect(throws: HTTPParseError.badStartLine) { try parser.next() }
    }

    @Test func responseRoundTripAndConveniences() throws {
        let response = HTTPResponse.json("{\"a\":1}", status: 201)
        var parser = HTTPResponseParser()
        parser.append(response.serialized)
        let parsed = try #require(try parser.next())
        #expect(parsed.status == 201)
        #expect(parsed.headers["content-type"] == "application/json")
        #expect(parsed.headers["Content-Length"] == "7")
        #expect(parsed.bodyText == "{\"a\":1}")
        #expect(HTTPResponse.text("x").headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    @Test func headResponseOmitsBodyButKeepsLength() {
        var out: [UInt8] = []
        HTTPResponse.text("hello").serialize(into: &out, omitBody: true)
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.hasSuffix("Content-Length: 5\r\n\r\n"))
    }
}

@Suite struct HTTPHeadersTests {
    @Test func caseInsensitiveSetAddRemove() {
        var h: HTTPHeaders = ["Content-Type": "a"]
        h.add("content-type", "b")
        #expect(h.values("CONTENT-TYPE") == ["a", "b"])
        h.set("Content-type", "c")
        #expect(h.values("content-type") == ["c"])
        h["X"] = "1"
        h["x"] = nil
        #expect(!h.contains("X"))
        h.add("Connection", "keep-alive, Upgrade")
        #expect(h.tokens("connection") == ["keep-alive", "upgrade"])
    }

    @Test func keepAliveRules() {
        #expect(HTTPKeepAlive.persists(version: .http1_1, headers: [:]))
        #expect(!HTTPKeepAlive.persists(version: .http1_1, headers: ["Connection": "close"]))
        #expect(!HTTPKeepAlive.persists(version: .http1_0, headers: [:]))
        #expect(HTTPKeepAlive.persists(version: .http1_0, headers: ["Connection": "Keep-Alive"]))
    }
}
