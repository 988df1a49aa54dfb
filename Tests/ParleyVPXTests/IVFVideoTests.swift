import Foundation
import Synchronization
import ParleyVPX
import Testing
import VideoCore

/// IVF files of VP8 on the SDK side: written by `IVFFileWriter` and `VP8IVFFileSink`, read by
/// ffprobe and by `IVFVideoReader` (decoded back to the test pattern's frames), also as a paced
/// source; the decoder reuses frames and refuses oversized pictures.
@Suite struct IVFVideoTests {
    static func temporaryPath(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("vpx-\(UUID().uuidString).\(suffix)").path
    }

    static func ffprobe(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=codec_name,width,height,nb_read_frames",
                             "-of", "default=noprint_wrappers=1", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func writtenFilesReadBackThroughTheDecoder() throws {
        let path = Self.temporaryPath("ivf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let encoder = try VP8Encoder(width: 320, height: 240, bitrate: 400_000)
        let writer = try IVFFileWriter(path: path, width: 320, height: 240)
        var pattern = TestPattern(width: 320, height: 240)
        for index in 0..<20 {
            var frame = pattern.next()
            frame.timestamp = (UInt32.max - 3000 * 5) &+ UInt32(index) &* 3000  // wraps within the file
            for encoded in try encoder.encode(frame, keyFrame: index == 0) { try writer.write(encoded) }
        }
        try writer.close()
        try writer.close()
        let probe = try Self.ffprobe(path)
        #expect(probe.contains("codec_name=vp8") && probe.contains("width=320") && probe.contains("nb_read_frames=20"), "\(probe)")

        var reader = try IVFVideoReader(source: FileByteSource(path: path))
        #expect(reader.header.frameCount == 20, "close() wrote the count")
        #expect(reader.format.width == 320 && reader.format.frameRate == FrameRate(framesPerSecond: 30))
        var frame = I420Frame(width: 320, height: 240)
        var numbers: [UInt32?] = [], timestamps: [UInt32] = []
        while try reader.produce(into: &frame) {
            numbers.append(TestPattern.frameNumber(in: frame))
            timestamps.append(frame.timestamp)
        }
        #expect(numbers == (0..<20).map { UInt32($0) })
        #expect(timestamps == (0..<20).map { UInt32($0 * 3000) }, "unwrapped, from the first frame")
    }

    @Test func anIVFFileAsAPacedSource() throws {
        let path = Self.temporaryPath("ivf")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = VP8IVFFileSink(path: path, bitrate: 300_000)
        var pattern = TestPattern(width: 256, height: 64)
        for _ in 0..<6 { try sink.write(pattern.next()) }
        #expect(throws: VideoSourceError.sizeMismatch(expected: "256x64", got: "320x240")) { try sink.write(I420Frame(width: 320, height: 240)) }
        try sink.close()
        final class Seen: Sendable {
            let numbers = Mutex<[UInt32?]>([])
            let ended = Mutex(false)
        }
        let seen = Seen()
        let source = try PacedVideoSource.ivfFile(path: path, loops: false) { error in
            #expect(error == nil)
            seen.ended.withLock { $0 = true }
        }
        #expect(source.format == VideoFormat(width: 256, height: 64, frameRate: FrameRate(framesPerSecond: 30)))
        #expect(throws: VideoSourceError.self) { try PacedVideoSource.ivfFile(path: path + ".missing") }
        try source.start { frame in seen.numbers.withLock { $0.append(TestPattern.frameNumber(in: frame)) } }
        for _ in 0..<300 where !seen.ended.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.01) }
        source.stop()
        #expect(seen.numbers.withLock { $0 } == (0..<6).map { UInt32($0) })
    }

    @Test func corruptFramesThrowAndHugeKeyFramesAreRefused() throws {
        var file: [UInt8] = []
        IVFFileHeader(width: 64, height: 64).serialize(into: &file)
        // A key frame header (RFC 6386 §9.1) announcing 16000×16000, then garbage.
        let huge: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x3E, 0x80, 0x3E] + Array(repeating: 0x55, count: 30)
        IVFFrameHeader(frameSize: huge.count, timestamp: 0).serialize(into: &file)
        file += huge
        var reader = try IVFVideoReader(source: MemoryByteSource(file))
        var frame = I420Frame(width: 64, height: 64)
        #expect(throws: VideoSourceError.self) { try reader.produce(into: &frame) }
        let decoder = try VP8Decoder()
        #expect(throws: VPXError.self) { try decoder.decode(huge) }
        #expect(throws: VPXError.self) { try decoder.decode([0x00, 0x01, 0x02, 0x03, 0x04]) }
    }

    @Test func decodingIntoAFrameReusesItsPlanes() throws {
        let encoder = try VP8Encoder(width: 320, height: 240)
        let decoder = try VP8Decoder()
        var pattern = TestPattern(width: 320, height: 240)
        var frame = I420Frame(width: 320, height: 240)
        let base = frame.y.withUnsafeBufferPointer { $0.baseAddress }
        for _ in 0..<3 {
            for encoded in try encoder.encode(pattern.next()) { #expect(try decoder.decode(encoded.data, into: &frame)) }
        }
        #expect(frame.y.withUnsafeBufferPointer { $0.baseAddress } == base)
        #expect(TestPattern.frameNumber(in: frame) == 2)
        #expect(throws: VPXError.self) { try encoder.encode(I420Frame(width: 640, height: 360)) }
    }
}
