/// The zlib checksum a PNG needs besides its chunks' CRC-32 (`CRC32`, WireKit): Adler-32 over
/// the zlib stream's data (RFC 1950 §8.2).
enum PNGChecksums {
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
