import Foundation
import Testing
import ParleyAudio
import ParleyOpus

/// In-band FEC (RFC 6716 §2.1.7) and PLC through `OpusAudioDecoder`.
@Suite struct OpusFECTests {
    static let frame = 960

    static func fecPackets(fec: Bool, loss: Int32 = 20) throws -> (signal: [Int16], packets: [[UInt8]]) {
        let signal = CodecTestSignal.speechLike(frames: 48_000)
        let encoder = try OpusEncoder(configuration: OpusEncoderConfiguration(
            bitrate: 32_000, signal: .voice, inbandFEC: fec, expectedPacketLossPercent: fec ? loss : 0))
        return (signal, try OpusCodecTests.encode(signal, encoder))
    }

    /// Decodes `packets`, replacing packet `lost` by FEC from the next packet (`useFEC`) or by PLC.
    static func decode(_ packets: [[UInt8]], lost: Int?, useFEC: Bool) throws -> (pcm: [Int16], recovered: Bool) {
        let decoder = try OpusAudioDecoder()
        var pcm = [Int16](repeating: 0, count: 5_760)
        var result: [Int16] = []
        var recovered = false
        for (index, packet) in packets.enumerated() {
            if index == lost {
                let n = packets[index + 1].withUnsafeBufferPointer { next in
                    pcm.withUnsafeMutableBufferPointer { out in
                        useFEC ? decoder.recoverFromFEC(in: next, samplesPerChannel: frame, into: out) : nil
                    }
                }
                if let n {
                    recovered = true
                    result += pcm[0..<n]
                } else {
                    let n = pcm.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: frame, into: $0) }
                    result += pcm[0..<n]
                }
                continue
            }
            let n = try packet.withUnsafeBufferPointer { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            result += pcm[0..<n]
        }
        return (result, recovered)
    }

    @Test func packetsCarryFECOnlyWhenAsked() throws {
        let with = try Self.fecPackets(fec: true).packets
        let without = try Self.fecPackets(fec: false).packets
        let flagged = with.dropFirst(2).filter { p in p.withUnsafeBufferPointer { OpusPacket.hasFEC($0) } }.count
        // SILK codes LBRR for frames its VAD calls speech: the louder ~70 % of each syllable here.
        #expect(flagged >= (with.count - 2) * 6 / 10, "\(flagged) of \(with.count - 2)")
        #expect(without.allSatisfy { p in !p.withUnsafeBufferPointer { OpusPacket.hasFEC($0) } })
        #expect(with.allSatisfy { p in p.withUnsafeBufferPointer { OpusPacket.mode(of: $0) } != .celt })
    }

    /// Dropping packet k and rebuilding it from packet k+1's FEC beats the decoder's PLC by a wide
    /// margin, measured against the input (shifted by the codec delay) and against the loss-free decode.
    @Test func fecRecoversALostFrameBetterThanPLC() throws {
        let (signal, packets) = try Self.fecPackets(fec: true)
        let clean = try Self.decode(packets, lost: nil, useFEC: false).pcm
        let delay = 312
        var fecSNR = 0.0, plcSNR = 0.0, fecVsInput = 0.0, plcVsInput = 0.0
        // Frames inside syllables (the 3 Hz envelope peaks at frames 4, 21 and 37).
        let losses = [4, 8, 17, 21, 34, 38]
        for k in losses {
            let fec = try Self.decode(packets, lost: k, useFEC: true)
            let plc = try Self.decode(packets, lost: k, useFEC: false)
            #expect(fec.recovered && !plc.recovered)
            let range = (k * Self.frame)..<((k + 1) * Self.frame)
            fecSNR += CodecTestSignal.snr(reference: clean[range], estimate: fec.pcm[range]) / Double(losses.count)
            plcSNR += CodecTestSignal.snr(reference: clean[range], estimate: plc.pcm[range]) / Double(losses.count)
            let input = signal[(range.lowerBound - delay)..<(range.upperBound - delay)]
            fecVsInput += CodecTestSignal.snr(reference: input, estimate: fec.pcm[range]) / Double(losses.count)
            plcVsInput += CodecTestSignal.snr(reference: input, estimate: plc.pcm[range]) / Double(losses.count)
        }
        // Measured: FEC ≈ 19.7 dB vs PLC ≈ 5.3 dB against the loss-free decode; 7.8 vs 4.5 dB against the input.
        #expect(fecSNR > plcSNR + 6, "FEC \(fecSNR) dB, PLC \(plcSNR) dB")
        #expect(fecVsInput > plcVsInput + 3, "FEC \(fecVsInput) dB, PLC \(plcVsInput) dB vs input")
    }

    @Test func withoutFECThereIsNothingToRecover() throws {
        let packets = try Self.fecPackets(fec: false).packets
        let decoder = try OpusAudioDecoder()
        var pcm = [Int16](repeating: 0, count: 960)
        let n = packets[10].withUnsafeBufferPointer { p in
            pcm.withUnsafeMutableBufferPointer { decoder.recoverFromFEC(in: p, samplesPerChannel: 960, into: $0) }
        }
        #expect(n == nil)
    }

    /// PLC continues the signal, then fades: the 5th concealed frame is far quieter than the 1st.
    @Test func concealmentFadesAndTakesAnyLength() throws {
        let packets = try Self.fecPackets(fec: false).packets
        let decoder = try OpusAudioDecoder()
        var pcm = [Int16](repeating: 0, count: 5_760)
        for packet in packets.prefix(20) {
            _ = try packet.withUnsafeBufferPointer { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
        }
        func rms(_ n: Int) -> Double {
            (pcm[0..<n].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(n)).squareRoot()
        }
        #expect(pcm.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: 960, into: $0) } == 960)
        let first = rms(960)
        for _ in 0..<3 { _ = pcm.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: 960, into: $0) } }
        #expect(pcm.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: 1_000, into: $0) } == 1_000)
        #expect(first > 300)
        #expect(rms(1_000) < first / 4)
        #expect(decoder.frameSamples(in: UnsafeBufferPointer(start: nil, count: 0)) == nil)
    }
}
