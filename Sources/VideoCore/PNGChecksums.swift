/// The two checksums a PNG needs: CRC-32 over each chunk's type and data (PNG §5.5, ISO 3309's
/// reflected 0xEDB88320), and Adler-32 over the zlib stream's data (RFC 1950 §8.2).
/// (STUN has its own CRC-32 for FINGERPRINT; VideoCore imports nothing from it.)
enum PNGChecksums {
    static let crcTable: [UInt32] = (0..<256).map { (n: UInt32) in
        var c = n
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Continues a CRC-32: start with 0xFFFFFFFF, finish by XOR with 0xFFFFFFFF.
    static func crc32(_ crc: UInt32, _ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c = crc
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c
    }

    /// Adler-32 of `bytes`, the modulo taken every 5552 bytes (the most that cannot overflow).
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var index = 0
        while index < bytes.count {
            let end = min(index + 5552, bytes.count)
            for i in index..<end {
                a &+= UInt32(bytes[i])
                b &+= a
            }
            a %= 65_521
            b %= 65_521
            index = end
        }
        return b << 16 | a
    }
}
