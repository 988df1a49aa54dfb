import Foundation
import MediaContainers
import ParleyCore
import ParleyOpus
import ParleyTestSupport
import ParleyVPX
import Testing
import VideoCore

/// The containers recordings are written in, read back by FFmpeg's `ffprobe` (Debian's ffmpeg):
/// an Ogg Opus file of two seconds of tone and an IVF file of thirty VP8 frames, with their
/// codecs, durations and frame counts as written.
@Suite(.tags(.interop)) struct RecordingContainersTests {
    static func ffprobe(_ path: String, _ entries: String) throws -> String { try FFprobe.text(path, entries: entries) }

    static func temporaryPath(_ name: String) -> String { NSTemporaryDirectory() + "parley-\(getpid())-\(name)" }

    @Test func oggOpusAsFFprobeReadsIt() throws {
        let encoder = try OpusEncoder(configuration: OpusEncoderConfiguration())
        var writer = OpusOggWriter(serialNumber: 0x1234_5678)
        var file = writer.header()
        var output = [UInt8](repeating: 0, count: 1500)
        for frame in 0..<100 {  // 2 s of 20 ms frames
            let pcm = (0..<960).map { Int16(8000 * sin(2 * Double.pi * 440 * Double(frame * 960 + $0) / 48_000)) }
            let n = try pcm.withUnsafeBufferPointer { p in try output.withUnsafeMutableBufferPointer { try encoder.encode(p, into: $0) } }
            file += writer.packet(Array(output.prefix(n)), samples: 960, isLast: frame == 99)
        }
        let path = Self.temporaryPath("rec.ogg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(file).write(to: URL(fileURLWithPath: path))
        let probe = try Self.ffprobe(path, "stream=codec_name,channels,sample_rate,nb_read_frames:format=duration")
        #expect(probe.contains("codec_name=opus"), "\(probe)")
        #expect(probe.contains("nb_read_frames=100"), "\(probe)")
        let duration = probe.split(separator: "\n").first { $0.hasPrefix("duration=") }.flatMap { Double($0.dropFirst(9)) } ?? 0
        #expect(abs(duration - 2.0) < 0.05, "duration \(duration)")
    }

    @Test func ivfVP8AsFFprobeReadsIt() throws {
        var pattern = TestPattern(width: 320, height: 240)
        let encoder = try VP8Encoder(width: 320, height: 240, bitrate: 300_000)
        let writer = IVFWriter(width: 320, height: 240)
        var file = writer.header()
        var frames = 0
        for _ in 0..<30 {
            let frame = pattern.next()
            for encoded in try encoder.encode(frame) {
                file += writer.frame(encoded.data, timestamp: UInt64(encoded.timestamp))
                frames += 1
            }
        }
        let path = Self.temporaryPath("rec.ivf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(file).write(to: URL(fileURLWithPath: path))
        let probe = try Self.ffprobe(path, "stream=codec_name,width,height,nb_read_frames")
        #expect(probe.contains("codec_name=vp8") && probe.contains("width=320") && probe.contains("height=240"), "\(probe)")
        #expect(probe.contains("nb_read_frames=\(frames)"), "\(probe)")
    }
}
