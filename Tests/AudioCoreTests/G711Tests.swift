import Foundation
import Testing
import AudioCore

/// ITU-T G.711 vectors: the end points and zeros of Tables 1 and 2, and code round trips.
@Suite struct G711Tests {
    @Test func muLawDecodesTheStandardsEndPoints() {
        #expect(G711.muLawDecode(0x00) == -32124)
        #expect(G711.muLawDecode(0x80) == 32124)
        #expect(G711.muLawDecode(0xFF) == 0)
        #expect(G711.muLawDecode(0x7F) == 0)
        #expect(G711.muLawDecode(0x7E) == -8)
        #expect(G711.muLawDecode(0xFE) == 8)
        #expect(G711.muLawDecode(0xEF) == 132)  // segment 1, first step
    }

    @Test func muLawEncodesTheStandardsEndPoints() {
        #expect(G711.muLawEncode(0) == 0xFF)
        #expect(G711.muLawEncode(32767) == 0x80)
        #expect(G711.muLawEncode(-32768) == 0x00)
        #expect(G711.muLawEncode(-32124) == 0x00)
        #expect(G711.muLawEncode(32124) == 0x80)
    }

    @Test func aLawDecodesAndEncodesTheStandardsEndPoints() {
        #expect(G711.aLawDecode(0xD5) == 8)
        #expect(G711.aLawDecode(0x55) == -8)
        #expect(G711.aLawDecode(0xAA) == 32256)
        #expect(G711.aLawDecode(0x2A) == -32256)
        #expect(G711.aLawEncode(0) == 0xD5)
        #expect(G711.aLawEncode(-1) == 0x55)
        #expect(G711.aLawEncode(32767) == 0xAA)
        #expect(G711.aLawEncode(-32768) == 0x2A)
    }

    @Test func everyALawCodeRoundTrips() {
        for code in 0...255 {
            #expect(G711.aLawEncode(G711.aLawDecode(UInt8(code))) == UInt8(code))
        }
    }

    /// μ-law has two zeros: 0xFF (+0) and 0x7F (−0); −0 decodes to 0, which encodes as +0.
    @Test func everyMuLawCodeRoundTripsExceptNegativeZero() {
        for code in 0...255 where code != 0x7F {
            #expect(G711.muLawEncode(G711.muLawDecode(UInt8(code))) == UInt8(code))
        }
        #expect(G711.muLawEncode(G711.muLawDecode(0x7F)) == 0xFF)
    }

    /// Decoded values rise with the code's magnitude: 16 steps per segment, step doubling per segment.
    @Test func decodedValuesAreMonotonicInMagnitude() {
        var previousMu = -1, previousA = -1
        for magnitude in 0..<128 {
            let mu = Int(G711.muLawDecode(UInt8(0xFF - magnitude)))
            let a = Int(G711.aLawDecode(UInt8(magnitude) ^ 0xD5))
            #expect(mu > previousMu || (magnitude == 0 && mu == 0))
            #expect(a > previousA)
            previousMu = mu
            previousA = a
        }
    }

    /// Companding keeps a speech-level sine about 38 dB above its quantization noise.
    @Test(arguments: G711.Law.allCases) func sineSignalToNoiseRatio(law: G711.Law) {
        let pcm = (0..<8000).map { Int16(10_000 * sin(2 * Double.pi * 1_000 * Double($0) / 8_000 + 0.3)) }
        var codes = [UInt8](repeating: 0, count: pcm.count)
        var decoded = [Int16](repeating: 0, count: pcm.count)
        let encodedCount = pcm.withUnsafeBufferPointer { p in codes.withUnsafeMutableBufferPointer { G711.encode(p, law: law, into: $0) } }
        let decodedCount = codes.withUnsafeBufferPointer { c in decoded.withUnsafeMutableBufferPointer { G711.decode(c, law: law, into: $0) } }
        #expect(encodedCount == pcm.count && decodedCount == pcm.count)
        var signal = 0.0, noise = 0.0
        for (x, y) in zip(pcm, decoded) {
            signal += Double(x) * Double(x)
            noise += (Double(x) - Double(y)) * (Double(x) - Double(y))
        }
        let snr = 10 * log10(signal / noise)
        #expect(snr > 35 && snr < 45)
    }
}
