import WireKit

/// Writes I420 frames as PNG images (W3C PNG, 3rd ed.): 8-bit RGB (colour type 2), no filter, in
/// one IDAT whose zlib stream (RFC 1950) holds stored deflate blocks (RFC 1951 §3.2.4) of at most
/// 65535 bytes. Larger than a compressed PNG, but simple, exact and dependency-free; every
/// decoder reads it. Buffers are kept between snapshots. One owner.
public struct PNGEncoder {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let maximumStoredBlock = 65_535
    private var rgb: [UInt8] = []
    private var scanlines: [UInt8] = []

    public init() {}

    /// The PNG file of `frame`.
    public mutating func encode(_ frame: I420Frame) -> [UInt8] {
        frame.rgb24(into: &rgb)
        let stride = frame.width * 3
        scanlines.removeAll(keepingCapacity: true)
        scanlines.reserveCapacity((stride + 1) * frame.height)
        for row in 0..<frame.height {
            scanlines.append(0)  // filter type 0: None
            scanlines += rgb[(row * stride)..<((row + 1) * stride)]
        }
        var out = Self.signature
        var header: [UInt8] = []
        Self.appendBigEndian(UInt32(frame.width), to: &header)
        Self.appendBigEndian(UInt32(frame.height), to: &header)
        header += [8, 2, 0, 0, 0]  // bit depth 8, RGB, deflate, filter method 0, no interlace
        Self.appendChunk("IHDR", header, to: &out)
        Self.appendChunk("IDAT", Self.zlibStored(scanlines), to: &out)
        Self.appendChunk("IEND", [], to: &out)
        return out
    }

    /// A zlib stream of stored blocks: CMF 0x78 (deflate, 32K window), FLG 0x01 (check bits, no
    /// dictionary, fastest), the blocks, then the Adler-32 of the data, big-endian.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        out.reserveCapacity(data.count + data.count / maximumStoredBlock * 5 + 11)
        var index = 0
        repeat {
            let length = min(maximumStoredBlock, data.count - index)
            let final: UInt8 = index + length == data.count ? 1 : 0
            out += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[index..<(index + length)]
            index += length
        } while index < data.count
        appendBigEndian(PNGChecksums.adler32(data), to: &out)
        return out
    }

    /// Length, type, data, CRC-32 of type and data (PNG §5.3).
    static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        appendBigEndian(UInt32(data.count), to: &out)
        let start = out.count
        out += Array(type.utf8)
        out += data
        appendBigEndian(CRC32.checksum(out[start...]), to: &out)
    }

    static func appendBigEndian(_ value: UInt32, to out: inout [UInt8]) {
        out += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
