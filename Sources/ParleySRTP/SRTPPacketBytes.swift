/// Big-endian field access on a packet buffer whose bounds the caller has already checked.
extension UnsafeMutableRawBufferPointer {
    func bigEndian16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    func bigEndian32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }

    func storeBigEndian32(_ value: UInt32, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }

    /// Length of the RTP header (RFC 3550 §5.1, §5.3.1: fixed part, CSRCs, extension), or nil when
    /// the packet is not version 2 or its header runs past `length`.
    func rtpHeaderLength(packetLength length: Int) -> Int? {
        guard length >= 12, self[0] >> 6 == 2 else { return nil }
        var header = 12 + 4 * Int(self[0] & 0x0F)
        if self[0] & 0x10 != 0 {
            guard length >= header + 4 else { return nil }
            header += 4 + 4 * Int(bigEndian16(at: header + 2))
        }
        return header <= length ? header : nil
    }
}

/// Fills the per-packet IV of RFC 3711 §4.1.1 (AES-CM, 16 bytes) or RFC 7714 §8.1/§9.1 (GCM,
/// 12 bytes): `salt` XOR the SSRC at `ssrcOffset` XOR the packet index, right-aligned at `indexEnd`.
/// The bytes not covered by the salt (the counter of AES-CM) stay zero.
func fillSRTPIV(_ iv: UnsafeMutableBufferPointer<UInt8>, salt: [UInt8], ssrc: UInt32, ssrcOffset: Int,
                index: UInt64, indexBytes: Int, indexEnd: Int) {
    for i in 0..<iv.count { iv[i] = i < salt.count ? salt[i] : 0 }
    for i in 0..<4 { iv[ssrcOffset + i] ^= UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * i)) }
    for i in 0..<indexBytes { iv[indexEnd - 1 - i] ^= UInt8(truncatingIfNeeded: index >> (8 * i)) }
}
