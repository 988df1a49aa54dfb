import Testing
@testable import HTTP2Wire

/// Malformed field blocks, limits and table-size signalling.
@Suite struct HPACKDecoderTests {
    @Test(arguments: [
        ([UInt8(0x80)], HPACKError.invalidIndex(0)),               // §6.1: index 0
        ([0xBE], .invalidIndex(62)),                                // empty dynamic table
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], .integerOverflow),
        ([0xFF, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80], .integerOverflow),
        ([0xFF], .truncated),                                       // integer continues past the end
        ([0x40, 0x05, 0x61], .truncated),                           // name longer than the block
        ([0x41], .truncated),                                       // no value
        ([0x40, 0x81, 0xFF], .invalidHuffman),                      // Huffman name that is all padding
        ([0x3F, 0xE2, 0x1F], .tableSizeAboveLimit(4097)),           // size update over SETTINGS
        ([0x82, 0x20], .misplacedTableSizeUpdate),                  // §4.2: after a field
    ])
    func malformedBlocks(block: [UInt8], error: HPACKError) {
        var decoder = HPACKDecoder()
        #expect(throws: error) { try decoder.decode(block) }
        #expect(error.http2ErrorCode == .compressionError && !error.isRecoverable)
    }

    @Test func tableSizeUpdatesEvictAndAllowZero() throws {
        var decoder = HPACKDecoder()
        _ = try decoder.decode(hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"))
        #expect(decoder.table.count == 1)
        #expect(pairs(try decoder.decode([0x20, 0x3F, 0xE1, 0x1F, 0x82])) == [":method: GET"])  // 0 then 4096
        #expect(decoder.table.count == 0 && decoder.table.maxSize == 4096)
        #expect(throws: HPACKError.invalidIndex(62)) { try decoder.decode([0xBE]) }
    }

    @Test func entryLargerThanTheTableEmptiesIt() throws {
        var decoder = HPACKDecoder(maxTableSize: 64)
        _ = try decoder.decode([0x3F, 0x21] + [0x41, 0x01, 0x61])  // size 64, then :authority: a (43)
        #expect(decoder.table.count == 1)
        let long = [UInt8](repeating: 0x62, count: 40)
        _ = try decoder.decode([0x41, UInt8(long.count)] + long)  // 10 + 40 + 32 > 64
        #expect(decoder.table.count == 0 && decoder.table.size == 0)
    }

    /// Past the list limit the decoder still indexes the fields, so the next block decodes correctly.
    @Test func oversizedListIsRecoverable() throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder(maxHeaderListSize: 100)
        let big = [HPACKHeaderField(name: "x-a", value: String(repeating: "a", count: 50)),
                   HPACKHeaderField(name: "x-b", value: String(repeating: "b", count: 50))]
        #expect(throws: HPACKError.headerListTooLarge(2 * (3 + 50 + 32))) { try decoder.decode(encoder.encode(big)) }
        #expect(HPACKError.headerListTooLarge(1).isRecoverable)
        decoder.maxHeaderListSize = 1000
        #expect(pairs(try decoder.decode(encoder.encode(big))) == big.map { "\($0.name): \($0.value)" })
        #expect(decoder.table.size == encoder.table.size)
    }

    @Test func invalidUTF8KeepsOctetAccounting() throws {
        var decoder = HPACKDecoder()
        // Literal with incremental indexing, new name "x" and the value 0xFF 0xFE (not UTF-8).
        let fields = try decoder.decode([0x40, 0x01, 0x78, 0x02, 0xFF, 0xFE])
        #expect(fields.count == 1 && fields[0].name == "x")
        #expect(decoder.table.size == 1 + 2 + 32)
    }

    @Test func encoderSignalsPeerTableSizeChanges() throws {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        let field = [HPACKHeaderField(name: "x-token", value: "abc")]
        _ = try decoder.decode(encoder.encode(field))
        #expect(decoder.table.count == 1)
        encoder.setPeerMaxTableSize(0)
        encoder.setPeerMaxTableSize(100)
        let block = encoder.encode(field)
        #expect(Array(block.prefix(3)) == [0x20, 0x3F, 0x45])  // §4.2: smallest (0), then final (100)
        #expect(pairs(try decoder.decode(block)) == ["x-token: abc"])
        #expect(decoder.table.maxSize == 100 && decoder.table.count == 1)
        encoder.setPeerMaxTableSize(100_000)  // above our own cap of 4096: grows back to 4096 only
        #expect(encoder.table.maxSize == 4096)
    }

    @Test func neverIndexedIsNeverIndexedEvenWhenInTheTable() {
        var encoder = HPACKEncoder(huffman: .never)
        _ = encoder.encode([HPACKHeaderField(name: "authorization", value: "secret")])
        let block = encoder.encode([HPACKHeaderField(name: "authorization", value: "secret", indexing: .never)])
        #expect(block == [0x1F, 0x08, 0x06] + Array("secret".utf8))  // §6.2.3 with static name 23
    }
}
