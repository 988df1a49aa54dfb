import AudioCore
import Foundation
import ParleyAudio
import ParleyOpus
import RTP
import Testing

/// The receive pipeline with the real Opus decoder: lost packets come back from the next packet's
/// in-band FEC (LBRR), or from a RED copy, and the tone survives.
@Suite struct AudioReceiveStreamOpusTests {
    /// One second of a 300 Hz tone encoded as 20 ms Opus frames with in-band FEC.
    static func encodedTone() throws -> [[UInt8]] {
        let encoder = try OpusAudioEncoder(configuration: OpusEncoderConfiguration(
            bitrate: 32_000, signal: .voice, inbandFEC: true, expectedPacketLossPercent: 20))
        var frames: [[UInt8]] = []
        var out = [UInt8](repeating: 0, count: 1_500)
        for k in 0..<50 {
            let pcm = (0..<960).map { i in Int16(8_000 * sin(2 * Double.pi * 300 * Double(k * 960 + i) / 48_000)) }
            let n = try pcm.withUnsafeBufferPointer { p in try out.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) } }
            frames.append(Array(out[0..<n]))
        }
        return frames
    }

    static func run(_ packets: [ReceiveStreamDriver.Packet], red: UInt8? = nil) throws -> ReceiveStreamDriver {
        let stream = try AudioReceiveStream(decoder: try OpusAudioDecoder(), configuration: AudioReceiveStreamConfiguration(
            payloadType: 111, redPayloadType: red, outputFormat: AudioFormat(sampleRate: 48_000, channels: 1)))
        var driver = ReceiveStreamDriver(stream: stream)
        driver.run(packets, until: 1_100_000)
        return driver
    }

    /// RMS of the played tone over its middle, where the losses were.
    static func rms(_ x: ArraySlice<Int16>) -> Double {
        (x.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(x.count, 1))).squareRoot()
    }

    /// libopus puts LBRR in the first packets of the tone and then stops (the signal is steady):
    /// losses before that come back from FEC, a later one falls back to concealment.
    @Test func lostFramesAreRebuiltFromInBandFEC() throws {
        let frames = try Self.encodedTone()
        let hasFEC = frames.map { f in f.withUnsafeBufferPointer { OpusPacket.hasFEC($0) } }
        #expect(hasFEC[11] && hasFEC[21] && !hasFEC[41])
        var packets = AudioReceiveStreamTests.packets(0..<50, payload: { frames[$0] })
        for i in [40, 20, 10] { packets.remove(at: i) }
        let driver = try Self.run(packets)
        let s = driver.stream.statistics.jitterBuffer
        #expect(s.decodedFrames == 47)
        #expect(s.fecRecoveredFrames == 2 && s.concealedSamples >= 960)
        let level = Self.rms(driver.output[24_000..<36_000])
        #expect(level > 8_000 / 2.squareRoot() * 0.7 && level < 8_000 / 2.squareRoot() * 1.3)
    }

    @Test func lostFramesAreRebuiltFromRED() throws {
        let frames = try Self.encodedTone()
        var packets = AudioReceiveStreamTests.packets(0..<50, payloadType: 63) { i in
            let primary = REDEncodedBlock(payloadType: 111, data: frames[i])
            let previous = i > 0 ? [REDEncodedBlock(payloadType: 111, timestampOffset: 960, data: frames[i - 1])] : []
            return (try? REDPayload.serialize(redundant: previous, primary: primary)) ?? []
        }
        packets.remove(at: 30)
        packets.remove(at: 20)
        let driver = try Self.run(packets, red: 63)
        let s = driver.stream.statistics.jitterBuffer
        #expect(s.decodedFrames == 48 && s.redRecoveredFrames == 2 && s.fecRecoveredFrames == 0)
        let level = Self.rms(driver.output[24_000..<36_000])
        #expect(level > 8_000 / 2.squareRoot() * 0.7 && level < 8_000 / 2.squareRoot() * 1.3)
    }
}
