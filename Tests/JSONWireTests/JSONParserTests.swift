import JSONWire
import Testing

@Suite struct JSONParserTests {
    func parse(_ s: String) throws(JSONParseError) -> JSONValue { try JSONValue.parse(Array(s.utf8)) }

    @Test func scalarsAndStructures() throws {
        #expect(try parse(" {\"a\" : [1, -2.5e3, true, false, null, \"x\"]} ")
                == .object(["a": .array([.integer(1), .double(-2500), .bool(true), .bool(false), .null, .string("x")])]))
        #expect(try parse("9223372036854775807") == .integer(.max))
        #expect(try parse("9223372036854775808") == .double(9.223372036854775808e18))
    }

    @Test func escapes() throws {
        #expect(try parse(#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#) == .string("a\"\\/\u{8}\u{c}\n\r\té😀"))
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "1e", "+1", "\"\\ud800\"", "\"\\udc00x\"",
                      "\"\u{01}\"", "\"\\x\"", "tru", "{\"a\":1}x", "{\"a\":1,\"a\":2}", "{a:1}", "1e999", "\"abc"])
    func rejects(text: String) {
        #expect(throws: JSONParseError.self) { try parse(text) }
    }

    /// Each refusal names its rule: the kind, and the byte where parsing stopped.
    @Test(arguments: [("{\"a\":1,\"a\":2}", JSONParseError.Kind.duplicateMemberName), ("{\"a\":1}x", .trailingData),
                      ("[1,]", .unexpectedCharacter), ("{a:1}", .expectedMemberName), ("\"\\ud800\"", .loneHighSurrogate),
                      ("1e999", .numberOutOfRange), ("\"abc", .unterminatedString), ("", .unexpectedEndOfInput)])
    func refusalsSayWhy(text: String, kind: JSONParseError.Kind) {
        #expect(throws: JSONParseError.self) { try parse(text) }
        do { _ = try parse(text) } catch { #expect(error.kind == kind, "\(text): \(error)") }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xff, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xc3, 0x22]) }
    }

    @Test func depthIsLimited() throws {
        let ok = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect(throws: Never.self) { try JSONValue.parse(Array(ok.utf8), maxDepth: 10) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(ok.utf8), maxDepth: 9) }
    }

    @Test func serialiseRoundTrips() throws {
        let value = JSONValue.object(["b": .string("q\"\n\u{1}é"), "a": .array([.integer(-3), .double(0.5), .null]),
                                      "c": .object([:])])
        let bytes = value.serialized()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"b":"q\"\n\u0001é","a":[-3,0.5,null],"c":{}}"#)
        #expect(try JSONValue.parse(bytes) == value)
    }

    @Test func objectEqualityIgnoresOrder() {
        let a: JSONObject = ["x": .integer(1), "y": .integer(2)]
        let b: JSONObject = ["y": .integer(2), "x": .integer(1)]
        #expect(a == b)
        #expect(a.keys != b.keys)
    }
}
