import Testing
@testable import HTTPWire

private func pairs(_ text: String) throws -> [[String]] { try FormURLEncoding.decode(text).map { [$0.0, $0.1] } }

@Suite struct FormURLEncodingTests {
    @Test func decodesAsTheURLStandardSays() throws {
        #expect(try pairs("a=1&b=two+words&c=%2B%26%3D") == [["a", "1"], ["b", "two words"], ["c", "+&="]])
        #expect(try pairs("&&a=1&&") == [["a", "1"]])
        #expect(try pairs("flag&=v&k=") == [["flag", ""], ["", "v"], ["k", ""]])
        #expect(try pairs("a=b=c") == [["a", "b=c"]])
        #expect(try pairs("From=client%3Aalice&Caller=client:alice&n=%C3%A9%E2%82%AC") ==
                [["From", "client:alice"], ["Caller", "client:alice"], ["n", "é€"]])
        #expect(try pairs("a=1&a=2") == [["a", "1"], ["a", "2"]])
        #expect(try pairs("") == [])
    }

    @Test func invalidPercentSequencesAreKeptLiterally() throws {
        #expect(try pairs("a=%zz&b=%4&c=%&d=100%25&e=%4g") == [["a", "%zz"], ["b", "%4"], ["c", "%"], ["d", "100%"], ["e", "%4g"]])
        #expect(try pairs("x=%FF%41") == [["x", "\u{FFFD}A"]])
        #expect(try FormURLEncoding.decode([0x61, 0x3D, 0xC3]).map(\.1) == ["\u{FFFD}"])
    }

    @Test func limits() {
        #expect(throws: FormURLEncodingError.tooManyPairs(limit: 2)) {
            _ = try FormURLEncoding.decode("a=1&b=2&c=3", limits: .init(maxPairs: 2))
        }
        #expect(throws: FormURLEncodingError.tooLarge(limit: 4)) {
            _ = try FormURLEncoding.decode("a=123", limits: .init(maxBytes: 4))
        }
        #expect((try? FormURLEncoding.decode("a=1&&&&b=2", limits: .init(maxPairs: 2)))?.count == 2)
    }

    @Test func encodesWithTheURLEncodedPercentEncodeSet() throws {
        #expect(FormURLEncoding.encodeComponent("aZ09*-._") == "aZ09*-._")
        #expect(FormURLEncoding.encodeComponent("a b+c&d=e~/é") == "a+b%2Bc%26d%3De%7E%2F%C3%A9")
        let input = [("From", "client:alice"), ("To", "+1 (555) 010-0000"), ("Body", "é€😀\r\n%"), ("", ""), ("k", "a&b=c")]
        let encoded = FormURLEncoding.encode(input)
        #expect(encoded.hasPrefix("From=client%3Aalice&To=%2B1+%28555%29+010-0000&"))
        let decoded = try FormURLEncoding.decode(encoded)
        #expect(decoded.count == input.count && zip(decoded, input).allSatisfy { $0 == $1 })
    }

    @Test func queryHelpers() throws {
        #expect(FormURLEncoding.url("https://h/p", appending: [("a", "1 2")]) == "https://h/p?a=1+2")
        #expect(FormURLEncoding.url("https://h/p?x=1", appending: [("a", "b")]) == "https://h/p?x=1&a=b")
        #expect(FormURLEncoding.url("https://h/p?", appending: [("a", "b")]) == "https://h/p?a=b")
        #expect(FormURLEncoding.url("https://h/p#f", appending: [("a", "b")]) == "https://h/p?a=b#f")
        #expect(FormURLEncoding.url("https://h/p", appending: []) == "https://h/p")
        #expect(try FormURLEncoding.queryPairs(of: "https://h/p?a=1&b=%20#c=3").map { [$0.0, $0.1] } == [["a", "1"], ["b", " "]])
        #expect(try FormURLEncoding.queryPairs(of: "https://h/p#x?y=1").isEmpty)
    }
}
