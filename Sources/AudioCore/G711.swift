/// ITU-T G.711 pulse code modulation: 16-bit linear PCM ↔ 8-bit μ-law (PCMU) or A-law (PCMA)
/// codes (RFC 3551 §4.5.14). Table-driven: decoding is one lookup in a 256-entry table, encoding one
/// lookup in a table indexed by the 14-bit (μ-law) or 13-bit (A-law) magnitude G.711 quantizes.
/// The tables are built once from the segment rules of G.711 Tables 1a/1b and 2a/2b.
public enum G711 {
    /// The companding law: μ-law (North America, Japan; RTP payload type 0) or A-law (elsewhere; type 8).
    public enum Law: Sendable, Equatable, CaseIterable {
        case muLaw, aLaw
    }

    // MARK: Single samples

    /// The μ-law code of `sample` (its top 14 bits are quantized).
    @inlinable public static func muLawEncode(_ sample: Int16) -> UInt8 {
        muLawEncodeTable[Int(sample >> 2) + 8192]
    }

    /// The linear value of a μ-law code (-32124…32124).
    @inlinable public static func muLawDecode(_ code: UInt8) -> Int16 { muLawDecodeTable[Int(code)] }

    /// The A-law code of `sample` (its top 13 bits are quantized).
    @inlinable public static func aLawEncode(_ sample: Int16) -> UInt8 {
        aLawEncodeTable[Int(sample >> 3) + 4096]
    }

    /// The linear value of an A-law code (-32256…32256).
    @inlinable public static func aLawDecode(_ code: UInt8) -> Int16 { aLawDecodeTable[Int(code)] }

    // MARK: Buffers

    /// Encodes `min(pcm.count, output.count)` samples; returns how many.
    public static func encode(_ pcm: UnsafeBufferPointer<Int16>, law: Law, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let n = min(pcm.count, output.count)
        switch law {
        case .muLaw: for i in 0..<n { output[i] = muLawEncode(pcm[i]) }
        case .aLaw: for i in 0..<n { output[i] = aLawEncode(pcm[i]) }
        }
        return n
    }

    /// Decodes `min(codes.count, output.count)` codes; returns how many.
    public static func decode(_ codes: UnsafeBufferPointer<UInt8>, law: Law, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let n = min(codes.count, output.count)
        switch law {
        case .muLaw: for i in 0..<n { output[i] = muLawDecode(codes[i]) }
        case .aLaw: for i in 0..<n { output[i] = aLawDecode(codes[i]) }
        }
        return n
    }

    // MARK: Tables

    /// μ-law decoding (G.711 Table 2a/2b): codes are sent inverted; bias 33 in 14-bit units.
    @usableFromInline static let muLawDecodeTable: [Int16] = (0..<256).map { code in
        let u = ~UInt8(code)
        var t = (Int(u & 0x0F) << 3) + 0x84
        t <<= Int((u & 0x70) >> 4)
        return Int16(u & 0x80 != 0 ? 0x84 - t : t - 0x84)
    }

    /// A-law decoding (G.711 Table 1a/1b): even bits are inverted (XOR 0x55); sign bit set is positive.
    @usableFromInline static let aLawDecodeTable: [Int16] = (0..<256).map { code in
        let a = UInt8(code) ^ 0x55
        var t = Int(a & 0x0F) << 4
        let segment = Int((a & 0x70) >> 4)
        switch segment {
        case 0: t += 8
        case 1: t += 0x108
        default: t = (t + 0x108) << (segment - 1)
        }
        return Int16(a & 0x80 != 0 ? t : -t)
    }

    /// μ-law encoding of every 14-bit value v (index v + 8192).
    @usableFromInline static let muLawEncodeTable: [UInt8] = (-8192..<8192).map { v in
        let segmentEnds = [0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF]
        var magnitude = v
        let mask: UInt8
        if magnitude < 0 {
            magnitude = -magnitude
            mask = 0x7F
        } else {
            mask = 0xFF
        }
        magnitude = min(magnitude, 8159) + (0x84 >> 2)
        guard let segment = segmentEnds.firstIndex(where: { magnitude <= $0 }) else { return 0x7F ^ mask }
        let code = UInt8(segment << 4) | UInt8((magnitude >> (segment + 1)) & 0x0F)
        return code ^ mask
    }

    /// A-law encoding of every 13-bit value v (index v + 4096).
    @usableFromInline static let aLawEncodeTable: [UInt8] = (-4096..<4096).map { v in
        let segmentEnds = [0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF]
        var magnitude = v
        let mask: UInt8
        if magnitude >= 0 {
            mask = 0xD5
        } else {
            mask = 0x55
            magnitude = -magnitude - 1
        }
        guard let segment = segmentEnds.firstIndex(where: { magnitude <= $0 }) else { return 0x7F ^ mask }
        let mantissa = segment < 2 ? (magnitude >> 1) & 0x0F : (magnitude >> segment) & 0x0F
        return (UInt8(segment << 4) | UInt8(mantissa)) ^ mask
    }
}
