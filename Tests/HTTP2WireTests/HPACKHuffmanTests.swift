import Testing
@testable import HTTP2Wire

@Suite struct HPACKHuffmanTests {
    /// The decoder assumes Appendix B is a canonical code: consecutive codes per length, shorter first.
    @Test func appendixBTableIsCanonicalAndComplete() {
        #expect(HPACKHuffman.codes.count == 257)
        let order = (0..<257).sorted {
            let a = HPACKHuffman.codes[$0], b = HPACKHuffman.codes[$1]
            return a.length != b.length ? a.length < b.length : $0 < $1
        }
        var code: UInt32 = 0
        var previous = HPACKHuffman.codes[order[0]].length
        var kraft = 0.0
        for (position, symbol) in order.enumerated() {
            let entry = HPACKHuffman.codes[symbol]
            if position > 0 { code = (code + 1) << UInt32(entry.length - previous) }
            previous = entry.length
            #expect(entry.code == code, "symbol \(symbol)")
            kraft += 1 / Double(1 << Int(entry.length))
        }
        #expect(kraft == 1)
        #expect(HPACKHuffman.codes[256] == (0x3fffffff, 30))  // EOS
        #expect(HPACKHuffman.codes[Int(UInt8(ascii: "0"))] == (0x0, 5))
    }

    /// RFC 7541 C.4 and C.6 strings.
    @Test(arguments: [
        ("f1e3 c2e5 f23a 6ba0 ab90 f4ff", "www.example.com"),
        ("a8eb 1064 9cbf", "no-cache"),
        ("25a8 49e9 5ba9 7d7f", "custom-key"),
        ("25a8 49e9 5bb8 e8b4 bf", "custom-value"),
        ("6402", "302"),
        ("aec3 771a 4b", "private"),
        ("d07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff", "Mon, 21 Oct 2013 20:13:21 GMT"),
        ("9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3", "https://www.example.com"),
        ("9bd9 ab", "gzip"),
    ])
    func rfcStrings(encoded: String, text: String) throws {
        #expect(try HPACKHuffman.decode(hex(encoded)) == Array(text.utf8))
        var out: [UInt8] = []
        HPACKHuffman.encode(text.utf8, into: &out)
        #expect(out == hex(encoded))
        #expect(HPACKHuffman.encodedLength(text.utf8) == out.count)
    }

    @Test func everyOctetRoundTrips() throws {
        let all = (0...255).map(UInt8.init)
        var out: [UInt8] = []
        HPACKHuffman.encode(all + all.reversed(), into: &out)
        #expect(try HPACKHuffman.decode(out) == all + all.reversed())
        #expect(try HPACKHuffman.decode([]) == [])
    }

    @Test(arguments: [
        [UInt8(0xFF), 0xFF, 0xFF, 0xFF],  // EOS (30 ones) inside the string
        [0x00],                           // '0' (00000) then padding 000: not ones
        [0x07, 0xFF],                     // '0' then 11 bits of padding: longer than 7
        [0xFF],                           // 8 bits of padding and no symbol
        [0xFE],                           // a 7-bit prefix of a longer code padded by a zero
    ])
    func invalidStrings(bytes: [UInt8]) {
        #expect(throws: HPACKError.invalidHuffman) { try HPACKHuffman.decode(bytes) }
    }
}
