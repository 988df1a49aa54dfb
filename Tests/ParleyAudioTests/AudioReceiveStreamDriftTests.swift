import AudioCore
import Foundation
import NetworkConditioner
import ParleyAudio
import ParleyCore
import Testing

/// A decoder of an endless 200 Hz tone at 8 kHz: the payload holds the frame index, and frame i
/// is samples [160 i, 160 (i + 1)) of the tone, so consecutive frames join without a seam.
final class ToneDecoder: AudioDecoder {
    let kind = AudioCodecKind.pcmu
    let sampleRate = 8_000
    let channels = 1
    static let frame = 160
    static let period = 40  // 200 Hz at 8 kHz
    static let table: [Int16] = (0..<period).map { Int16((8_000 * sin(2 * .pi * Double($0) / Double(period))).rounded()) }

    func frameSamples(in payload: UnsafeBufferPointer<UInt8>) -> Int? { payload.count == 4 ? Self.frame : nil }

    func decode(_ payload: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<Int16>) throws(ParleyError) -> Int {
        guard payload.count == 4 else { throw ParleyError(.mediaNoSupportedCodec, reason: "bad tone payload") }
        let index = payload.reduce(0) { $0 << 8 | Int($1) }
        for i in 0..<Self.frame { output[i] = Self.table[(index * Self.frame + i) % Self.period] }
        return Self.frame
    }

    func conceal(samplesPerChannel: Int, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        for i in 0..<samplesPerChannel { output[i] = 0 }
        return samplesPerChannel
    }

    func recoverFromFEC(in nextPayload: UnsafeBufferPointer<UInt8>, samplesPerChannel: Int,
                        into output: UnsafeMutableBufferPointer<Int16>) -> Int? { nil }
}

/// Clock drift through the whole receive pipeline with the real time stretcher: the sender's
/// clock runs 0.5 % fast or slow for 5 simulated minutes.
@Suite struct AudioReceiveStreamDriftTests {
    @Test(arguments: [1.005, 0.995])
    func driftIsCompensatedWithoutLateLossOrClicks(senderScale: Double) throws {
        let stream = try AudioReceiveStream(decoder: ToneDecoder(), configuration: AudioReceiveStreamConfiguration(
            payloadType: 0, outputFormat: AudioFormat(sampleRate: 8_000, channels: 1)))
        var delays: [Int64] = []
        stream.onPlayout = { if let d = $0.jitterBufferDelay { delays.append(d) } }
        var random = SeededGenerator(seed: 9)
        let frames = 15_000  // 5 minutes of 20 ms frames
        var buffer = [Int16](repeating: 0, count: 80)
        var maxJump = 0
        var last: Int16?
        var next = 0
        var clock: Int64 = 0
        let end = Int64(Double(frames) * 20_000 / senderScale) + 100_000
        var nextArrival = Int64(50_000)
        while clock < end {
            while next < frames, nextArrival <= clock {
                let payload: [UInt8] = [0, 0, UInt8(next >> 8), UInt8(next & 0xFF)]
                payload.withUnsafeBytes { bytes in
                    _ = stream.receive(payloadType: 0, sequenceNumber: UInt16(truncatingIfNeeded: next),
                                       timestamp: UInt32(next * 160), ssrc: 1, marker: false, payload: bytes, at: nextArrival)
                }
                next += 1
                nextArrival = Int64((Double(next) * 20_000 / senderScale).rounded()) + 50_000
                    + Int64(random.unit() * 5_000)
            }
            buffer.withUnsafeMutableBufferPointer { stream.read(into: $0, at: clock) }
            // Seams from accelerate/expand: compare every step with the tone's own largest step.
            if clock > 1_000_000, next < frames {
                for s in buffer {
                    if let last { maxJump = max(maxJump, abs(Int(s) - Int(last))) }
                    last = s
                }
            }
            clock += 10_000
        }
        let s = stream.statistics.jitterBuffer
        #expect(s.decodedFrames == frames)
        #expect(s.latePackets == 0 && s.concealedSamples <= 800)  // only the end of the stream
        let toneStep = Int(8_000 * 2 * Double.pi / Double(ToneDecoder.period)) + 2
        #expect(maxJump <= toneStep)
        let stretched = senderScale > 1 ? s.acceleratedSamples - s.expandedSamples : s.expandedSamples - s.acceleratedSamples
        // 0.5 % of 300 s is 1.5 s: 12 000 samples at 8 kHz.
        #expect(abs(stretched - 12_000) <= 1_000)
        // A tone never pauses, so an excess above the band waits `quietWaitMicros` (3 s) before
        // it is removed anyway: 0.5 % of 3 s is 15 ms more than the band's 30 ms.
        let steady = delays.dropFirst(250).sorted()
        #expect((steady.last ?? 0) <= 50_000)
    }
}
