/// A padding-only RTP packet (RFC 3550 §5.1: the P bit set, the last octet counting the padding,
/// itself included), as a bandwidth probe sends on a retransmission stream (RFC 4588: an RTX
/// packet with no original sequence number carries nothing to repair; receivers count its bytes
/// and drop it). With an abs-send-time id, one element (RFC 8285 §4.2 one-byte form) so a
/// delay-based receiver counts it in its estimate.
enum RTPPaddingPacket {
    /// The padding octets of one packet: the most one count octet can say.
    static let paddingBytes = 255
    /// The bytes of one packet before SRTP: fixed header, the abs-send-time block, padding.
    static let length = 12 + 8 + paddingBytes

    /// Writes a packet into `slot` (at least `length` bytes); returns its length, or -1 when it
    /// does not fit (8 bytes shorter without `absSendTime`).
    static func write(into slot: UnsafeMutableRawBufferPointer, ssrc: UInt32, payloadType: UInt8, sequenceNumber: UInt16,
                      timestamp: UInt32, absSendTime: (id: UInt8, value: UInt32)?) -> Int {
        guard slot.count >= length else { return -1 }
        var offset = 12
        slot[0] = 0x80 | 0x20 | (absSendTime == nil ? 0 : 0x10)  // V=2, P, X
        slot[1] = payloadType & 0x7F
        slot[2] = UInt8(sequenceNumber >> 8)
        slot[3] = UInt8(truncatingIfNeeded: sequenceNumber)
        for i in 0..<4 {
            slot[4 + i] = UInt8(truncatingIfNeeded: timestamp >> (24 - 8 * i))
            slot[8 + i] = UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * i))
        }
        let padding = paddingBytes
        if let stamp = absSendTime {
            // 0xBEDE, one 32-bit word: id and length − 1 (2), the 24-bit value.
            slot[12] = 0xBE
            slot[13] = 0xDE
            slot[14] = 0
            slot[15] = 1
            slot[16] = stamp.id << 4 | 2
            slot[17] = UInt8(truncatingIfNeeded: stamp.value >> 16)
            slot[18] = UInt8(truncatingIfNeeded: stamp.value >> 8)
            slot[19] = UInt8(truncatingIfNeeded: stamp.value)
            offset = 20
        }
        UnsafeMutableRawBufferPointer(rebasing: slot[offset..<(offset + padding - 1)]).initializeMemory(as: UInt8.self, repeating: 0)
        slot[offset + padding - 1] = UInt8(padding)
        return offset + padding
    }
}
