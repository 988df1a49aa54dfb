import AudioCore
import Foundation
@testable import ServerMedia
import Synchronization
import Testing

@Suite struct MediaRecorderTests {
    /// Packets of `frames` with sequence numbers from `firstSequence` (wrapping) and timestamps
    /// advancing by the codec's frame.
    func packets(_ frames: [[UInt8]], codec: CallAudioCodec, firstSequence: UInt16 = 65_500,
                 firstTimestamp: UInt32 = 123_456) -> [TappedAudioPacket] {
        frames.enumerated().map { i, payload in
            TappedAudioPacket(payload: payload, sequenceNumber: firstSequence &+ UInt16(i),
                              timestamp: firstTimestamp &+ UInt32(i * codec.samplesPerFrame), codec: codec)
        }
    }

    func readWAV(_ path: String) throws -> WAVFile {
        try WAVFile(parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func opusWithLossAndReorderingRecordsTheToneAt8kHz() throws {
        let frames = try encodedFrames(of: ToneSource(frequencies: [1_000], seconds: 2), codec: .opus, ticks: 100)
        let all = packets(frames, codec: .opus)
        var order = Array(0..<100)
        order.removeAll { $0 == 40 || $0 == 41 }           // lost
        order.swapAt(20, 21)                              // reordered by one
        let late = order.remove(at: 58)                    // arrives three packets late
        order.insert(late, at: 61)
        let path = mediaTemporaryPath("opus.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try CallRecorder(path: path)
        for i in order { recorder.receive(all[i], arrivalMicroseconds: Int64(i) * 20_000) }
        let status = recorder.status()
        #expect(status.packets == 98 && status.lostPackets == 2)
        let recording = try recorder.finish()
        #expect(recording.frames == 16_000 && recording.duration == 2 && recording.channels == 1 && recording.sampleRate == 8_000)
        let wav = try readWAV(path)
        #expect(wav.sampleRate == 8_000 && wav.channels == 1 && wav.samples.count == 16_000)
        // ToneSource's −10 dBm0 peaks at 7 190; Opus at 32 kbit/s keeps it within a few percent.
        for range in [800..<3_000, 3_200..<6_200, 7_000..<15_000] {
            let amplitude = MediaSignal.amplitude(wav.samples[range], frequency: 1_000, rate: 8_000)
            #expect(abs(amplitude - 7_190) < 700, "1 kHz at \(range): \(amplitude)")
        }
        // The two lost frames (6 400..<6 720) are concealed, not a hole of silence.
        #expect(MediaSignal.rms(wav.samples[6_400..<6_560]) > 1_000)
        #expect(try recorder.finish() == recording)
    }

    @Test func pcmuRecordsAt16kHz() throws {
        let frames = try encodedFrames(of: ToneSource(frequencies: [440], seconds: 1), codec: .pcmu, ticks: 50)
        let path = mediaTemporaryPath("pcmu.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try CallRecorder(path: path, configuration: .init(sampleRate: 16_000))
        for (i, packet) in packets(frames, codec: .pcmu).enumerated() {
            recorder.receive(packet, arrivalMicroseconds: Int64(i) * 20_000)
        }
        let recording = try recorder.finish()
        #expect(abs(recording.frames - 16_000) <= 16)
        let wav = try readWAV(path)
        #expect(wav.sampleRate == 16_000)
        #expect(MediaSignal.strongest(wav.samples[1_600..<14_400], of: [220, 440, 880], rate: 16_000) == 440)
        #expect(abs(MediaSignal.amplitude(wav.samples[1_600..<14_400], frequency: 440, rate: 16_000) - 7_190) < 500)
    }

    @Test func dualChannelPutsEachLegOnItsSideAlignedByArrival() throws {
        let caller = packets(try encodedFrames(of: ToneSource(frequencies: [440], seconds: 1), codec: .opus, ticks: 50), codec: .opus)
        let callee = packets(try encodedFrames(of: ToneSource(frequencies: [1_000], seconds: 1), codec: .pcmu, ticks: 50),
                             codec: .pcmu, firstSequence: 7, firstTimestamp: 0)
        let path = mediaTemporaryPath("dual.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try CallRecorder(path: path, configuration: .init(layout: .dual))
        for tick in 0..<75 {
            let now = Int64(tick) * 20_000
            if tick < 50 { recorder.receive(caller[tick], leg: 0, arrivalMicroseconds: now) }
            if tick >= 25 { recorder.receive(callee[tick - 25], leg: 1, arrivalMicroseconds: now) }
        }
        let recording = try recorder.finish()
        #expect(recording.channels == 2 && recording.frames == 12_000)
        let wav = try readWAV(path)
        let left = stride(from: 0, to: wav.samples.count, by: 2).map { wav.samples[$0] }
        let right = stride(from: 1, to: wav.samples.count, by: 2).map { wav.samples[$0] }
        #expect(MediaSignal.strongest(left[400..<7_600], of: [440, 1_000], rate: 8_000) == 440)
        #expect(MediaSignal.rms(left[8_400...]) < 50)
        #expect(MediaSignal.rms(right[0..<3_900]) < 50)
        #expect(MediaSignal.strongest(right[4_400..<11_600], of: [440, 1_000], rate: 8_000) == 1_000)
        #expect(MediaSignal.amplitude(right[4_400..<11_600], frequency: 440, rate: 8_000) < 100)
    }

    @Test func monoMixesBothLegs() throws {
        let a = packets(try encodedFrames(of: ToneSource(frequencies: [440], seconds: 1), codec: .opus, ticks: 50), codec: .opus)
        let b = packets(try encodedFrames(of: ToneSource(frequencies: [1_000], seconds: 1), codec: .opus, ticks: 50), codec: .opus)
        let path = mediaTemporaryPath("mix.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try CallRecorder(path: path, legs: 2)
        for i in 0..<50 {
            recorder.receive(a[i], leg: 0, arrivalMicroseconds: Int64(i) * 20_000)
            recorder.receive(b[i], leg: 1, arrivalMicroseconds: Int64(i) * 20_000 + 3_000)
        }
        #expect(try recorder.finish().frames == 8_024)  // leg 1 arrives 3 ms (24 samples) later
        let wav = try readWAV(path)
        #expect(MediaSignal.amplitude(wav.samples[800..<7_200], frequency: 440, rate: 8_000) > 6_000)
        #expect(MediaSignal.amplitude(wav.samples[800..<7_200], frequency: 1_000, rate: 8_000) > 6_000)
    }

    @Test func maximumLengthCutsTheFileAndReportsOnce() throws {
        let all = packets(try encodedFrames(of: ToneSource(frequencies: [700], seconds: 2), codec: .opus, ticks: 100), codec: .opus)
        let path = mediaTemporaryPath("max.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let limits = Mutex(0)
        let recorder = try CallRecorder(path: path, configuration: .init(maximumSeconds: 1)) { limits.withLock { $0 += 1 } }
        for (i, packet) in all.enumerated() { recorder.receive(packet, arrivalMicroseconds: Int64(i) * 20_000) }
        #expect(recorder.status().reachedMaximumLength)
        #expect(limits.withLock { $0 } == 1)
        #expect(try recorder.finish().duration == 1)
        #expect(try readWAV(path).samples.count == 8_000)
    }

    @Test func trailingSilenceIsMeasuredForRecordTimeout() throws {
        let source = SequenceSource([ToneSource(frequencies: [500], seconds: 1), SilenceSource(seconds: 1.5)])
        let all = packets(try encodedFrames(of: source, codec: .opus, ticks: 125), codec: .opus)
        let path = mediaTemporaryPath("silence.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try CallRecorder(path: path)
        for (i, packet) in all.prefix(40).enumerated() { recorder.receive(packet, arrivalMicroseconds: Int64(i) * 20_000) }
        #expect(recorder.status(nowMicroseconds: 39 * 20_000).trailingSilence == 0)
        #expect(recorder.status().levelDBFS > -20)
        for (i, packet) in all.enumerated().dropFirst(40) { recorder.receive(packet, arrivalMicroseconds: Int64(i) * 20_000) }
        let status = recorder.status(nowMicroseconds: 124 * 20_000)
        #expect(abs(status.trailingSilence - 1.5) < 0.05, "trailing silence \(status.trailingSilence)")
        let later = recorder.status(nowMicroseconds: 124 * 20_000 + 1_000_000)
        #expect(abs(later.trailingSilence - 2.5) < 0.05)
        _ = try recorder.finish()
    }

    @Test func timestampGapWithoutLossBecomesSilence() throws {
        var all = packets(try encodedFrames(of: ToneSource(frequencies: [600], seconds: 2), codec: .opus, ticks: 100), codec: .opus)
        for i in 50..<100 { all[i].timestamp &+= 48_000 }  // the sender paused (DTX) for a second
        let path = mediaTemporaryPath("dtx.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try CallRecorder(path: path)
        for (i, packet) in all.enumerated() { recorder.receive(packet, arrivalMicroseconds: Int64(i) * 20_000 + (i >= 50 ? 1_000_000 : 0)) }
        #expect(recorder.status().lostPackets == 0)
        #expect(try recorder.finish().frames == 24_000)
        let wav = try readWAV(path)
        #expect(MediaSignal.rms(wav.samples[8_200..<15_800]) < 50)
        #expect(MediaSignal.amplitude(wav.samples[16_400..<23_600], frequency: 600, rate: 8_000) > 6_000)
    }

    @Test func newStreamAfterASequenceJumpIsPlacedByArrival() throws {
        var all = packets(try encodedFrames(of: ToneSource(frequencies: [600], seconds: 1), codec: .opus, ticks: 50), codec: .opus,
                          firstSequence: 30_000)
        for i in 25..<50 {  // the sender restarted: new sequence and timestamp bases
            all[i].sequenceNumber = UInt16(100 + i)
            all[i].timestamp = UInt32(i * 960)
        }
        let path = mediaTemporaryPath("restart.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = try CallRecorder(path: path)
        for (i, packet) in all.enumerated() { recorder.receive(packet, arrivalMicroseconds: Int64(i) * 20_000) }
        let recording = try recorder.finish()
        #expect(recording.frames == 8_000)
        #expect(recorder.status().packets == 50)
    }
}
