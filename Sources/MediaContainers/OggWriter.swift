/// Ogg pages (RFC 3533) for one logical stream: each packet becomes one or more pages' segments,
/// every page carries its granule position and CRC. What `OpusOggWriter` writes recordings with.
public struct OggWriter: Sendable {
    public let serialNumber: UInt32
    private var sequence: UInt32 = 0
    private var pendingSegments: [UInt8] = []
    private var pendingData: [UInt8] = []
    private var wroteFirstPage = false

    public init(serialNumber: UInt32) { self.serialNumber = serialNumber }

    /// The pages that carry `packet`, ending on it, with `granulePosition` (RFC 3533 §6: the
    /// position at the end of the last packet completed on the page). `isLast` marks the
    /// stream's end (EOS).
    public mutating func pages(for packet: [UInt8], granulePosition: UInt64, isLast: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        // Lacing: 255-byte segments, then the remainder (a 0 when the packet is a multiple of 255).
        var remaining = packet.count
        var offset = 0
        var continued = false
        while true {
            let chunk = min(255, remaining)
            pendingSegments.append(UInt8(chunk))
            pendingData += packet[offset..<(offset + chunk)]
            offset += chunk
            remaining -= chunk
            if pendingSegments.count == 255 && (chunk == 255) {
                // A full page in the middle of a packet: no packet ends on it (granule −1).
                out += page(granule: UInt64.max, continued: continued, last: false)
                continued = true
            }
            if chunk < 255 { break }
        }
        out += page(granule: granulePosition, continued: continued, last: isLast)
        return out
    }

    private mutating func page(granule: UInt64, continued: Bool, last: Bool) -> [UInt8] {
        var header: UInt8 = 0
        if continued { header |= 0x01 }
        if !wroteFirstPage { header |= 0x02 }
        if last { header |= 0x04 }
        wroteFirstPage = true
        var page: [UInt8] = Array("OggS".utf8) + [0, header]
        for i in 0..<8 { page.append(UInt8(truncatingIfNeeded: granule >> (8 * UInt64(i)))) }
        for value in [serialNumber, sequence] {
            for i in 0..<4 { page.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
        }
        sequence += 1
        let crcOffset = page.count
        page += [0, 0, 0, 0, UInt8(pendingSegments.count)]
        page += pendingSegments
        page += pendingData
        pendingSegments = []
        pendingData = []
        let crc = OggCRC.checksum(page)
        for i in 0..<4 { page[crcOffset + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        return page
    }
}

/// The Ogg page CRC: CRC-32 with polynomial 0x04C11DB7, no reflection, initial value and final
/// XOR zero (RFC 3533 §6, "CRC_checksum"), over the page with its CRC field zeroed.
enum OggCRC {
    static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var r = UInt32(index) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes { crc = (crc << 8) ^ table[Int(((crc >> 24) ^ UInt32(byte)) & 0xFF)] }
        return crc
    }
}
