import Foundation
import Testing
import ParleyAudio
import ParleyOpus

/// libopus through `OpusEncoder`/`OpusDecoder` and the `AudioEncoder`/`AudioDecoder` adapters.
@Suite struct OpusCodecTests {
    /// Encodes `signal` (interleaved) frame by frame; returns the packets.
    static func encode(_ signal: [Int16], _ encoder: OpusEncoder) throws -> [[UInt8]] {
        let frame = encoder.samplesPerFrame * Int(encoder.channels)
        var out = [UInt8](repeating: 0, count: 4_000)
        var packets: [[UInt8]] = []
        for start in stride(from: 0, to: signal.count - frame + 1, by: frame) {
            let n = try signal[start..<(start + frame)].withUnsafeBufferPointer { p in
                try out.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) }
            }
            packets.append(Array(out[0..<n]))
        }
        return packets
    }

    static func decode(_ packets: [[UInt8]], _ decoder: OpusDecoder) throws -> [Int16] {
        var pcm = [Int16](repeating: 0, count: 5_760 * Int(decoder.channels))
        var result: [Int16] = []
        for packet in packets {
            let n = try packet.withUnsafeBufferPointer { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            result += pcm[0..<(n * Int(decoder.channels))]
        }
        return result
    }

    static func channel(_ x: [Int16], _ c: Int, of channels: Int) -> [Int16] {
        stride(from: c, to: x.count, by: channels).map { x[$0] }
    }

    @Test(arguments: OpusFrameDuration.allCases)
    func toneAndChirpSurviveEachFrameDuration(duration: OpusFrameDuration) throws {
        for (name, signal) in [("tone", CodecTestSignal.sine(440, frames: 48_000)),
                               ("chirp", CodecTestSignal.chirp(from: 200, to: 3_000, frames: 48_000))] {
            let encoder = try OpusEncoder(configuration: OpusEncoderConfiguration(frameDuration: duration, bitrate: 48_000))
            let packets = try Self.encode(signal, encoder)
            #expect(packets.count == 48_000 / duration.samples(atRate: 48_000))
            let decoder = try OpusDecoder()
            #expect(packets.allSatisfy { p in p.withUnsafeBufferPointer { decoder.samplesPerChannel(in: $0) } == encoder.samplesPerFrame })
            let decoded = try Self.decode(packets, decoder)
            #expect(decoded.count == packets.count * encoder.samplesPerFrame)
            // The tone repeats every 109 samples, so only the chirp pins the lag to the codec delay.
            let lookahead = encoder.lookahead
            let best = CodecTestSignal.bestLag(signal, decoded, lags: (lookahead - 60)...(lookahead + 60), range: 4_800..<20_000)
            #expect(best.correlation > 0.9, "\(name) at \(duration.milliseconds) ms: \(best.correlation)")
            if name == "chirp" {
                #expect(abs(best.lag - lookahead) <= 4, "lag \(best.lag), lookahead \(lookahead)")
            }
            if name == "tone" {
                #expect(abs(CodecTestSignal.dominantFrequency(Array(decoded[9_600..<14_400])) - 440) <= 4)
            }
        }
    }

    @Test func stereoKeepsBothChannels() throws {
        let left = CodecTestSignal.sine(440, frames: 48_000), right = CodecTestSignal.chirp(from: 300, to: 1_500, frames: 48_000)
        var interleaved = [Int16](repeating: 0, count: 96_000)
        for i in 0..<48_000 {
            interleaved[2 * i] = left[i]
            interleaved[2 * i + 1] = right[i]
        }
        let encoder = try OpusEncoder(configuration: OpusEncoderConfiguration(channels: 2, bitrate: 96_000))
        let packets = try Self.encode(interleaved, encoder)
        #expect(packets.allSatisfy { p in p.withUnsafeBufferPointer { OpusPacket.channels(in: $0) } == 2 })
        let decoded = try Self.decode(packets, try OpusDecoder(channels: 2))
        let outLeft = Self.channel(decoded, 0, of: 2), outRight = Self.channel(decoded, 1, of: 2)
        #expect(CodecTestSignal.bestLag(left, outLeft, lags: 250...370, range: 4_800..<20_000).correlation > 0.9)
        #expect(CodecTestSignal.bestLag(right, outRight, lags: 250...370, range: 4_800..<20_000).correlation > 0.9)
        #expect(abs(CodecTestSignal.dominantFrequency(Array(outLeft[9_600..<14_400])) - 440) <= 4)
    }

    @Test func encoderRejectsAFrameOfTheWrongLength() throws {
        let encoder = try OpusEncoder()
        let pcm = [Int16](repeating: 0, count: 480)
        var out = [UInt8](repeating: 0, count: 1_500)
        #expect(throws: (any Error).self) {
            try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) } }
        }
        #expect(throws: (any Error).self) { try OpusEncoder(configuration: OpusEncoderConfiguration(channels: 3)) }
    }

    @Test func settersClampAndStick() throws {
        let encoder = try OpusEncoder(configuration: OpusEncoderConfiguration(bitrate: 64_000, maxAverageBitrate: 20_000))
        #expect(encoder.effectiveBitrate == 20_000)
        encoder.maxAverageBitrate = nil
        #expect(encoder.effectiveBitrate == 64_000)
        encoder.bitrate = 1_000_000
        #expect(encoder.effectiveBitrate == 510_000)
        encoder.complexity = 42
        #expect(encoder.complexity == 10)
        encoder.expectedPacketLossPercent = -3
        #expect(encoder.expectedPacketLossPercent == 0)
        encoder.inbandFEC = true
        encoder.dtx = true
        #expect(encoder.configuration.inbandFEC && encoder.configuration.dtx)
        #expect(encoder.lookahead == 312)  // 6.5 ms at 48 kHz for VoIP
    }

    /// Average payload size follows the bitrate, and `maxAverageBitrate` caps it.
    @Test func bitrateSetsThePayloadSize() throws {
        let speech = CodecTestSignal.speechLike(frames: 48_000)
        func meanSize(_ configuration: OpusEncoderConfiguration) throws -> Double {
            let packets = try Self.encode(speech, try OpusEncoder(configuration: configuration))
            return Double(packets.reduce(0) { $0 + $1.count }) / Double(packets.count)
        }
        let low = try meanSize(OpusEncoderConfiguration(bitrate: 16_000))
        let high = try meanSize(OpusEncoderConfiguration(bitrate: 64_000))
        let capped = try meanSize(OpusEncoderConfiguration(bitrate: 64_000, maxAverageBitrate: 16_000))
        // VBR: 16 kb/s × 20 ms = 40 bytes, 64 kb/s × 20 ms = 160 bytes, within a third.
        #expect(abs(low - 40) < 14, "\(low)")
        #expect(abs(high - 160) < 54, "\(high)")
        #expect(abs(capped - low) < 5)

        let encoder = try OpusEncoder(configuration: OpusEncoderConfiguration(bitrate: 16_000))
        let before = try Self.encode(Array(speech[0..<24_000]), encoder)
        encoder.bitrate = 64_000
        let after = try Self.encode(Array(speech[24_000...]), encoder)
        #expect(after.reduce(0) { $0 + $1.count } > 2 * before.reduce(0) { $0 + $1.count })
    }

    /// DTX turns the silence after a talkspurt into 1–2 byte packets (and remembers it is in DTX).
    @Test func dtxShrinksSilence() throws {
        var generator = SystemRandomNumberGenerator()
        let talk = CodecTestSignal.speechLike(frames: 24_000)
        let hush = (0..<96_000).map { _ in Int16.random(in: -4...4, using: &generator) }
        let plainEncoder = try OpusEncoder()
        let dtxEncoder = try OpusEncoder(configuration: OpusEncoderConfiguration(dtx: true))
        // Skip the talk and the encoder's hangover (DTX starts some 200–400 ms into silence).
        let plain = try Self.encode(talk + hush, plainEncoder).dropFirst(50)
        let dtx = try Self.encode(talk + hush, dtxEncoder).dropFirst(50)
        let plainBytes = plain.reduce(0) { $0 + $1.count }, dtxBytes = dtx.reduce(0) { $0 + $1.count }
        let dtxFrames = dtx.filter { $0.count <= 2 }.count
        #expect(dtxFrames > dtx.count * 3 / 4, "\(dtx.map(\.count))")
        #expect(plain.filter { $0.count <= 2 }.count < plain.count / 10, "\(plain.map(\.count))")
        #expect(dtxBytes * 5 < plainBytes, "DTX \(dtxBytes) bytes, plain \(plainBytes)")
        #expect(dtxEncoder.isInDTX && !plainEncoder.isInDTX)
    }
}
