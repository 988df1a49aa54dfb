import Foundation
import Testing
import AudioCore
import ParleyAudio

/// PCMU/PCMA through the `AudioEncoder`/`AudioDecoder` adapters, and G.711 Appendix I-style concealment.
@Suite struct G711CodecTests {
    /// A 100 Hz harmonic sound at 8 kHz: its pitch period is 80 samples.
    static func voiced(frames: Int) -> [Int16] {
        (0..<frames).map { n in
            let t = Double(n) / 8_000
            return Int16(4_000 * sin(2 * .pi * 100 * t) + 2_000 * sin(2 * .pi * 300 * t + 0.5) + 1_000 * sin(2 * .pi * 700 * t))
        }
    }

    static func decodeFrames(_ decoder: G711AudioDecoder, _ encoder: G711AudioEncoder, _ pcm: [Int16]) throws -> [Int16] {
        var payload = [UInt8](repeating: 0, count: 160)
        var out = [Int16](repeating: 0, count: 160)
        var result: [Int16] = []
        for start in stride(from: 0, to: pcm.count, by: 160) {
            let n = try pcm[start..<(start + 160)].withUnsafeBufferPointer { p in
                try payload.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) }
            }
            #expect(n == 160)
            let m = try payload.withUnsafeBufferPointer { p in try out.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            result += out[0..<m]
        }
        return result
    }

    @Test(arguments: [AudioCodecKind.pcmu, .pcma])
    func roundTripKeepsTheSignal(kind: AudioCodecKind) throws {
        let encoder = try G711AudioEncoder(kind: kind), decoder = try G711AudioDecoder(kind: kind)
        #expect(encoder.sampleRate == 8_000 && decoder.channels == 1)
        #expect(encoder.law == (kind == .pcmu ? .muLaw : .aLaw))
        let pcm = Self.voiced(frames: 1_600)
        let decoded = try Self.decodeFrames(decoder, encoder, pcm)
        #expect(CodecTestSignal.snr(reference: pcm[...], estimate: decoded[...]) > 30)
        let payload: [UInt8] = [0xFF, 0x7F, 0x80]
        #expect(payload.withUnsafeBufferPointer { decoder.frameSamples(in: $0) } == 3)
        #expect(payload.withUnsafeBufferPointer { p in
            var out = [Int16](repeating: 0, count: 3)
            return out.withUnsafeMutableBufferPointer { decoder.recoverFromFEC(in: p, samplesPerChannel: 3, into: $0) }
        } == nil)
    }

    @Test func rejectsOpusAndSmallOutput() throws {
        #expect(throws: (any Error).self) { try G711AudioEncoder(kind: .opus) }
        #expect(throws: (any Error).self) { try G711AudioDecoder(kind: .opus) }
        let encoder = try G711AudioEncoder(kind: .pcmu)
        let pcm = [Int16](repeating: 0, count: 160)
        var small = [UInt8](repeating: 0, count: 80)
        #expect(throws: (any Error).self) {
            try pcm.withUnsafeBufferPointer { p in try small.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) } }
        }
    }

    /// A lost frame repeats the last pitch period (80 samples here): the first 10 ms continue the true
    /// signal closely, then the level falls 20 % per 10 ms, and nothing is left after 60 ms.
    @Test func concealmentRepeatsThePitchPeriodAndFades() throws {
        let encoder = try G711AudioEncoder(kind: .pcmu), decoder = try G711AudioDecoder(kind: .pcmu)
        let pcm = Self.voiced(frames: 1_600)
        _ = try Self.decodeFrames(decoder, encoder, Array(pcm[0..<800]))
        var concealed = [Int16](repeating: 0, count: 640)
        #expect(concealed.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: 640, into: $0) } == 640)
        #expect(decoder.concealmentPitch == 80)
        #expect(CodecTestSignal.snr(reference: pcm[800..<880], estimate: concealed[0..<80]) > 25)
        func rms(_ r: Range<Int>) -> Double { (concealed[r].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(r.count)).squareRoot() }
        let full = rms(0..<80)
        #expect(abs(rms(160..<240) / full - 0.7) < 0.1)  // 20–30 ms: gain 0.8 → 0.6
        #expect(rms(400..<480) < full * 0.15)
        #expect(concealed[480...].allSatisfy { $0 == 0 })
    }

    /// After a long loss (silent concealment), the next good frame fades in instead of jumping.
    @Test func recoveryCrossFadesIntoTheNewFrame() throws {
        let encoder = try G711AudioEncoder(kind: .pcma), decoder = try G711AudioDecoder(kind: .pcma)
        let pcm = Self.voiced(frames: 2_400)
        _ = try Self.decodeFrames(decoder, encoder, Array(pcm[0..<800]))
        var concealed = [Int16](repeating: 0, count: 560)
        _ = concealed.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: 560, into: $0) }
        let resumed = try Self.decodeFrames(decoder, encoder, Array(pcm[1_360..<1_520]))
        #expect(decoder.concealedRun == 0)
        let peak = pcm[1_360..<1_520].map { abs(Int($0)) }.max() ?? 0
        #expect(resumed[0..<4].allSatisfy { abs(Int($0)) < peak / 8 })
        // Past the cross-fade the frame is the plain decode.
        #expect(CodecTestSignal.snr(reference: pcm[1_460..<1_520], estimate: resumed[100..<160]) > 30)
    }

    @Test func concealmentWithoutHistoryIsSilence() throws {
        let decoder = try G711AudioDecoder(kind: .pcmu)
        var out = [Int16](repeating: 7, count: 160)
        #expect(out.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: 160, into: $0) } == 160)
        #expect(out.allSatisfy { $0 == 0 })
    }
}
