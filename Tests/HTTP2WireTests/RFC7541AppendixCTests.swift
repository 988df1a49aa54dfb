import Testing
@testable import HTTP2Wire

private func fields(_ list: [(String, String)]) -> [HPACKHeaderField] {
    list.map { HPACKHeaderField(name: $0.0, value: $0.1) }
}

private func table(_ t: HPACKDynamicTable) -> [String] { t.fields.map { "\($0.name): \($0.value)" } }

/// RFC 7541 Appendix C: the published examples, decoded and re-encoded byte for byte.
@Suite struct RFC7541AppendixCTests {
    // MARK: C.1 integer representation

    @Test func c1IntegerExamples() throws {
        var out: [UInt8] = []
        HPACKPrimitives.writeInteger(10, prefixBits: 5, flags: 0, into: &out)
        #expect(out == [0x0A])  // C.1.1
        out = []
        HPACKPrimitives.writeInteger(1337, prefixBits: 5, flags: 0, into: &out)
        #expect(out == [0x1F, 0x9A, 0x0A])  // C.1.2
        out = []
        HPACKPrimitives.writeInteger(42, prefixBits: 8, flags: 0, into: &out)
        #expect(out == [0x2A])  // C.1.3
        for (bytes, prefix, value) in [([UInt8(0x0A)], 5, 10), ([0x1F, 0x9A, 0x0A], 5, 1337), ([0x2A], 8, 42),
                                       ([0xFF, 0x9A, 0x0A], 5, 1337)] {
            var index = 0
            let decoded = try bytes.withUnsafeBytes { raw throws(HPACKError) in
                try HPACKPrimitives.readInteger(raw, at: &index, prefixBits: prefix)
            }
            #expect(decoded == value && index == bytes.count)
        }
    }

    // MARK: C.2 header field representations

    @Test func c2_1LiteralWithIndexing() throws {
        var decoder = HPACKDecoder()
        let out = try decoder.decode(hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"))
        #expect(pairs(out) == ["custom-key: custom-header"])
        #expect(table(decoder.table) == ["custom-key: custom-header"])
        #expect(decoder.table.size == 55)
    }

    @Test func c2_2LiteralWithoutIndexing() throws {
        var decoder = HPACKDecoder()
        let out = try decoder.decode(hex("040c 2f73 616d 706c 652f 7061 7468"))
        #expect(out == [HPACKHeaderField(name: ":path", value: "/sample/path", indexing: .withoutIndexing)])
        #expect(decoder.table.count == 0)
        var encoder = HPACKEncoder(huffman: .never)
        #expect(encoder.encode(out) == hex("040c 2f73 616d 706c 652f 7061 7468"))
    }

    @Test func c2_3LiteralNeverIndexed() throws {
        var decoder = HPACKDecoder()
        let out = try decoder.decode(hex("1008 7061 7373 776f 7264 0673 6563 7265 74"))
        #expect(out == [HPACKHeaderField(name: "password", value: "secret", indexing: .never)])
        #expect(decoder.table.count == 0)
        #expect(out[0].description == "password: <hidden>")
        var encoder = HPACKEncoder(huffman: .never)
        #expect(encoder.encode(out) == hex("1008 7061 7373 776f 7264 0673 6563 7265 74"))
    }

    @Test func c2_4IndexedField() throws {
        var decoder = HPACKDecoder()
        #expect(pairs(try decoder.decode([0x82])) == [":method: GET"])
        #expect(decoder.table.count == 0)
    }

    // MARK: C.3 / C.4 requests, one decoder per sequence

    static let requests: [[(String, String)]] = [
        [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com")],
        [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "www.example.com"),
         ("cache-control", "no-cache")],
        [(":method", "GET"), (":scheme", "https"), (":path", "/index.html"), (":authority", "www.example.com"),
         ("custom-key", "custom-value")],
    ]

    static let requestTables: [([String], Int)] = [
        ([":authority: www.example.com"], 57),
        (["cache-control: no-cache", ":authority: www.example.com"], 110),
        (["custom-key: custom-value", "cache-control: no-cache", ":authority: www.example.com"], 164),
    ]

    static let c3 = [
        "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
        "8286 84be 5808 6e6f 2d63 6163 6865",
        "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
    ]

    static let c4 = [
        "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
        "8286 84be 5886 a8eb 1064 9cbf",
        "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
    ]

    @Test(arguments: [("C.3", c3, HPACKEncoder.HuffmanPolicy.never), ("C.4", c4, .always)])
    func requestSequences(name: String, blocks: [String], huffman: HPACKEncoder.HuffmanPolicy) throws {
        var decoder = HPACKDecoder()
        var encoder = HPACKEncoder(huffman: huffman)
        for (step, block) in blocks.enumerated() {
            let decoded = try decoder.decode(hex(block))
            #expect(pairs(decoded) == Self.requests[step].map { "\($0.0): \($0.1)" },
                    "\(name).\(step + 1)")
            #expect(table(decoder.table) == Self.requestTables[step].0, "\(name).\(step + 1)")
            #expect(decoder.table.size == Self.requestTables[step].1, "\(name).\(step + 1)")
            #expect(encoder.encode(fields(Self.requests[step])) == hex(block), "\(name).\(step + 1) encoding")
            #expect(encoder.table.size == decoder.table.size)
        }
    }

    // MARK: C.5 / C.6 responses with a 256-octet table (evictions)

    static let cookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"

    static let responses: [[(String, String)]] = [
        [(":status", "302"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
         ("location", "https://www.example.com")],
        [(":status", "307"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:21 GMT"),
         ("location", "https://www.example.com")],
        [(":status", "200"), ("cache-control", "private"), ("date", "Mon, 21 Oct 2013 20:13:22 GMT"),
         ("location", "https://www.example.com"), ("content-encoding", "gzip"), ("set-cookie", cookie)],
    ]

    static let responseTables: [([String], Int)] = [
        (["location: https://www.example.com", "date: Mon, 21 Oct 2013 20:13:21 GMT", "cache-control: private",
          ":status: 302"], 222),
        ([":status: 307", "location: https://www.example.com", "date: Mon, 21 Oct 2013 20:13:21 GMT",
          "cache-control: private"], 222),
        (["set-cookie: \(cookie)", "content-encoding: gzip", "date: Mon, 21 Oct 2013 20:13:22 GMT"], 215),
    ]

    static let c5 = [
        """
        4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
        2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70
        6c65 2e63 6f6d
        """,
        "4803 3330 37c1 c0bf",
        """
        88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d
        54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049
        5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e
        3d31
        """,
    ]

    static let c6 = [
        """
        4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
        2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3
        """,
        "4883 640e ffc1 c0bf",
        """
        88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
        77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
        9587 3160 65c0 03ed 4ee5 b106 3d50 07
        """,
    ]

    @Test(arguments: [("C.5", c5, HPACKEncoder.HuffmanPolicy.never), ("C.6", c6, .always)])
    func responseSequences(name: String, blocks: [String], huffman: HPACKEncoder.HuffmanPolicy) throws {
        // SETTINGS_HEADER_TABLE_SIZE is 256 on both sides; the examples carry no size update.
        var decoder = HPACKDecoder(maxTableSize: 256)
        var encoder = HPACKEncoder(maxTableSize: 256, huffman: huffman)
        _ = encoder.encode([])  // flushes the size update a real encoder would send first
        for (step, block) in blocks.enumerated() {
            let decoded = try decoder.decode(hex(block))
            #expect(pairs(decoded) == Self.responses[step].map { "\($0.0): \($0.1)" },
                    "\(name).\(step + 1)")
            #expect(table(decoder.table) == Self.responseTables[step].0, "\(name).\(step + 1)")
            #expect(decoder.table.size == Self.responseTables[step].1, "\(name).\(step + 1)")
            #expect(encoder.encode(fields(Self.responses[step])) == hex(block), "\(name).\(step + 1) encoding")
            #expect(table(encoder.table) == table(decoder.table))
        }
    }
}
