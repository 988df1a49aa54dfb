import HTTP2Wire

/// Feeds bytes to the HPACK decoder as two field blocks on one connection (split at a point taken
/// from the input, so the dynamic table carries over), and checks that every decoded list survives
/// encode → decode on a second encoder/decoder pair with the same names and values. Also runs the
/// bytes through the Huffman decoder and checks re-encoding.
enum HPACKFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        let split = data.isEmpty ? 0 : Int(data[0]) % (data.count + 1)
        var decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 16 * 1024)
        var encoder = HPACKEncoder(huffman: split % 2 == 0 ? .whenShorter : .never)
        var mirror = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 20)
        for part in [UnsafeRawBufferPointer(rebasing: data[..<split]), UnsafeRawBufferPointer(rebasing: data[split...])] {
            let fields: [HPACKHeaderField]
            do {
                fields = try decoder.decode(part)
            } catch {
                if error.isRecoverable { continue }
                break
            }
            guard let again = try? mirror.decode(encoder.encode(fields)),
                  again.map(\.name) == fields.map(\.name), again.map(\.value) == fields.map(\.value) else {
                fatalError("HPACK decode -> encode -> decode is unstable")
            }
            guard decoder.table.size <= decoder.table.maxSize, encoder.table.size == mirror.table.size else {
                fatalError("HPACK dynamic table accounting diverged")
            }
        }
        var plain: [UInt8] = []
        if (try? HPACKHuffman.decode(data, into: &plain)) != nil {
            var encoded: [UInt8] = []
            HPACKHuffman.encode(plain, into: &encoded)
            guard encoded.count == HPACKHuffman.encodedLength(plain), (try? HPACKHuffman.decode(encoded)) == plain else {
                fatalError("Huffman decode -> encode -> decode is unstable")
            }
        }
    }
}
