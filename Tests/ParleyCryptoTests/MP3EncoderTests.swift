import Foundation
import ParleyMP3
import Testing

/// The LAME wrapper writes a stream of constant-bit-rate Layer III frames (headers checked against
/// ISO/IEC 11172-3 §2.4.2.3 and its MPEG-2/2.5 extensions) covering the whole input.
@Suite struct MP3EncoderTests {
    /// One frame header's fields.
    struct FrameHeader: Equatable {
        /// 0 = MPEG-2.5, 2 = MPEG-2, 3 = MPEG-1.
        var version: Int
        var layer: Int
        var bitrateKbps: Int
        var sampleRate: Int
        var channelMode: Int
        var length: Int

        init?(_ b: ArraySlice<UInt8>) {
            guard b.count >= 4 else { return nil }
            let h = b.startIndex
            guard b[h] == 0xFF, b[h + 1] & 0xE0 == 0xE0 else { return nil }
            version = Int(b[h + 1] >> 3) & 3
            layer = 4 - (Int(b[h + 1] >> 1) & 3)
            let bitrateIndex = Int(b[h + 2] >> 4), rateIndex = Int(b[h + 2] >> 2) & 3
            let padding = Int(b[h + 2] >> 1) & 1
            channelMode = Int(b[h + 3] >> 6)
            guard layer == 3, version != 1, rateIndex < 3, (1...14).contains(bitrateIndex) else { return nil }
            let mpeg1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
            let mpeg2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
            bitrateKbps = (version == 3 ? mpeg1 : mpeg2)[bitrateIndex]
            let rates = [[11_025, 12_000, 8_000], [], [22_050, 24_000, 16_000], [44_100, 48_000, 32_000]]
            sampleRate = rates[version][rateIndex]
            let coefficient = version == 3 ? 144 : 72
            length = coefficient * bitrateKbps * 1000 / sampleRate + padding
        }

        var samplesPerFrame: Int { version == 3 ? 1152 : 576 }
    }

    static func frames(_ mp3: [UInt8]) -> [FrameHeader] {
        var headers: [FrameHeader] = []
        var offset = 0
        while let header = FrameHeader(mp3[offset...]), offset + header.length <= mp3.count {
            headers.append(header)
            offset += header.length
        }
        #expect(offset == mp3.count, "the stream is frames only, with nothing left over")
        return headers
    }

    static func tone(hertz: Double, seconds: Double, rate: Int, channels: Int) -> [Int16] {
        let frames = Int(seconds * Double(rate))
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for i in 0..<frames {
            for c in 0..<channels {
                samples.append(Int16(8000 * sin(2 * .pi * hertz * Double(c + 1) * Double(i) / Double(rate))))
            }
        }
        return samples
    }

    @Test func eightKilohertzMonoIsMPEG25At32Kbps() throws {
        let mp3 = try MP3Encoder.encode(Self.tone(hertz: 440, seconds: 3, rate: 8000, channels: 1), sampleRate: 8000, channels: 1)
        let frames = Self.frames(mp3)
        #expect(frames.allSatisfy { $0.version == 0 && $0.sampleRate == 8000 && $0.bitrateKbps == 32 && $0.channelMode == 3 })
        // 3 s is 41.7 frames of 576 samples; the encoder's delay and flush add at most a few.
        let covered = Double(frames.count * 576) / 8000
        #expect(covered >= 3 && covered < 3.4, "\(frames.count) frames")
        #expect(MP3Encoder.version.hasPrefix("3."))
    }

    @Test func dualChannelIsStereoAndWiderRatesWork() throws {
        let stereo = try MP3Encoder.encode(Self.tone(hertz: 300, seconds: 1, rate: 8000, channels: 2), sampleRate: 8000, channels: 2)
        let frames = Self.frames(stereo)
        #expect(!frames.isEmpty && frames.allSatisfy { $0.channelMode == 0 && $0.bitrateKbps == 64 && $0.sampleRate == 8000 })
        let wide = try MP3Encoder.encode(Self.tone(hertz: 440, seconds: 1, rate: 48_000, channels: 1), sampleRate: 48_000,
                                         channels: 1, bitrate: 64)
        #expect(Self.frames(wide).allSatisfy { $0.version == 3 && $0.sampleRate == 48_000 && $0.bitrateKbps == 64 })
        #expect(try MP3Encoder.encode([], sampleRate: 8000, channels: 1).count < 1000)
    }

    /// A figure, not an assertion: what the first `.mp3` request of a long recording costs.
    @Test func encodingAMinuteOfTelephoneAudio() throws {
        let samples = Self.tone(hertz: 440, seconds: 60, rate: 8000, channels: 1)
        let start = ContinuousClock.now
        let mp3 = try MP3Encoder.encode(samples, sampleRate: 8000, channels: 1)
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        print("MP3: 60 s of 8 kHz mono → \(mp3.count) bytes in \(Int(ms)) ms (\(Int(60_000 / max(ms, 0.001)))× real time)")
        #expect(mp3.count > 60 * 4000 * 9 / 10 && mp3.count < 60 * 4000 * 11 / 10)  // 32 kbit/s
    }

    @Test func refusesWhatMP3CannotCarry() {
        #expect(throws: MP3EncoderError.self) { try MP3Encoder.encode([0, 0, 0], sampleRate: 8000, channels: 3) }
        #expect(throws: MP3EncoderError.self) { try MP3Encoder.encode([0], sampleRate: 96_000, channels: 1) }
        #expect(throws: MP3EncoderError.self) { try MP3Encoder.encode([0], sampleRate: 8000, channels: 1, bitrate: 320) }
    }
}
