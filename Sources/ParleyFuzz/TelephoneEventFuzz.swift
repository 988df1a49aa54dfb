import RTP

/// Feeds bytes to the RFC 4733 telephone-event parser. Whatever parses must re-serialize to the
/// same bytes (the R bit included), block by block, through both serializers.
enum TelephoneEventFuzz {
    static func run(_ data: UnsafeRawBufferPointer) {
        guard let blocks = try? TelephoneEvent.count(in: data) else {
            precondition((try? TelephoneEvent(parsing: data)) == nil, "single-block parser accepted a partial payload")
            precondition((try? TelephoneEvent.parseAll(Array(data))) == nil, "parseAll accepted a partial payload")
            return
        }
        precondition(blocks * TelephoneEvent.size == data.count, "block count disagrees with the length")
        precondition((try? TelephoneEvent(parsing: data)) == (try? TelephoneEvent(parsing: data, block: 0)),
                     "first-block parsers disagree")
        var buffer = (UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        for index in 0..<blocks {
            guard let event = try? TelephoneEvent(parsing: data, block: index) else {
                preconditionFailure("block \(index) of \(blocks) refused")
            }
            precondition(event.volume <= TelephoneEvent.maximumVolume, "volume outside 6 bits")
            let start = index * TelephoneEvent.size
            let original = Array(data[start..<start + TelephoneEvent.size])
            precondition(event.serialized == original, "telephone-event round trip changed the bytes")
            let written = withUnsafeMutableBytes(of: &buffer) { raw in try? event.serialize(into: raw) }
            precondition(written == TelephoneEvent.size, "buffer serializer wrote \(String(describing: written)) bytes")
            precondition([buffer.0, buffer.1, buffer.2, buffer.3] == original, "buffer serializer disagrees")
        }
        precondition((try? TelephoneEvent(parsing: data, block: blocks)) == nil, "parsed a block past the end")
        precondition((try? TelephoneEvent.parseAll(Array(data)))?.count == blocks, "parseAll lost blocks")
    }
}
