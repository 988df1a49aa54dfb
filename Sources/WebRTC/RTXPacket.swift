
/// A slot's retransmission stream (RFC 4588 §4): its payload type (`apt` our codec's), SSRC
/// (grouped with the slot's by `a=ssrc-group:FID`) and its own sequence numbers.
struct SlotRetransmissionStream {
    let payloadType: UInt8
    let ssrc: UInt32
    var nextSequence: UInt16
}

/// RFC 4588 §4: a retransmission packet carries, after the header, the original sequence number
/// (2 bytes, OSN), then the original payload; the header is the original's but for its payload
/// type, SSRC and sequence number, the retransmission stream's.
enum RTXPacket {
    /// Turns the RTP packet in `buffer[0..<length]`, whose payload starts at `payloadStart`, into a
    /// retransmission packet in place: the payload (and any padding) moves 2 bytes on for the OSN.
    /// `buffer` must have 2 bytes spare after `length`. Returns the new length.
    static func wrap(_ buffer: UnsafeMutableRawBufferPointer, length: Int, payloadStart: Int, ssrc: UInt32,
                     payloadType: UInt8, sequenceNumber: UInt16) -> Int {
        let base = buffer.baseAddress!
        let original = UInt16(buffer[2]) << 8 | UInt16(buffer[3])
        (base + payloadStart + 2).copyMemory(from: base + payloadStart, byteCount: length - payloadStart)
        buffer[payloadStart] = UInt8(original >> 8)
        buffer[payloadStart + 1] = UInt8(truncatingIfNeeded: original)
        buffer[1] = buffer[1] & 0x80 | payloadType & 0x7F
        buffer[2] = UInt8(sequenceNumber >> 8)
        buffer[3] = UInt8(truncatingIfNeeded: sequenceNumber)
        for i in 0..<4 { buffer[8 + i] = UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * i)) }
        return length + 2
    }
}
