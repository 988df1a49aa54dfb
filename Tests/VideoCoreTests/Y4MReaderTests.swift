import Foundation
import Testing
import VideoCore

/// Y4M streams written by `Y4MWriter`/`Y4MFileSink` and read back by `Y4MReader`, in memory and
/// through files; ffprobe reads the file the sink wrote.
@Suite struct Y4MReaderTests {
    static func stream(frames: Int, width: Int = 320, height: Int = 240) throws -> (bytes: [UInt8], frames: [I420Frame]) {
        var pattern = TestPattern(width: width, height: height)
        let writer = Y4MWriter(header: Y4MHeader(width: width, height: height, frameRate: FrameRate(framesPerSecond: 30)))
        var bytes: [UInt8] = []
        writer.writeHeader(into: &bytes)
        var written: [I420Frame] = []
        for _ in 0..<frames {
            let frame = pattern.next()
            try writer.write(frame, into: &bytes)
            written.append(frame)
        }
        return (bytes, written)
    }

    @Test func readsBackWhatWasWritten() throws {
        let (bytes, written) = try Self.stream(frames: 3)
        var reader = try Y4MReader(source: MemoryByteSource(bytes))
        #expect(reader.format == VideoFormat(width: 320, height: 240, frameRate: FrameRate(framesPerSecond: 30)))
        var frame = I420Frame(width: 1, height: 1)
        for index in 0..<3 {
            #expect(try reader.produce(into: &frame))
            #expect(frame.y == written[index].y && frame.u == written[index].u && frame.v == written[index].v)
            #expect(frame.timestamp == UInt32(index * 3000))
            #expect(TestPattern.frameNumber(in: frame) == UInt32(index))
        }
        #expect(try reader.produce(into: &frame) == false, "clean end")
        try reader.rewind()
        #expect(try reader.produce(into: &frame) && TestPattern.frameNumber(in: frame) == 0)
    }

    @Test func framesAreReadIntoTheSameBuffers() throws {
        let (bytes, _) = try Self.stream(frames: 3)
        var reader = try Y4MReader(source: MemoryByteSource(bytes))
        var frame = I420Frame(width: 320, height: 240)
        let before = frame.y.withUnsafeBufferPointer { $0.baseAddress }
        _ = try reader.produce(into: &frame)
        _ = try reader.produce(into: &frame)
        #expect(frame.y.withUnsafeBufferPointer { $0.baseAddress } == before, "no allocation per frame")
    }

    @Test func frameParametersAreAcceptedAndBadFrameLinesThrow() throws {
        let header = Array("YUV4MPEG2 W2 H2 F25:1\n".utf8)
        let planes: [UInt8] = [1, 2, 3, 4, 5, 6]
        var reader = try Y4MReader(source: MemoryByteSource(header + Array("FRAME Ixyz\n".utf8) + planes))
        var frame = I420Frame(width: 2, height: 2)
        #expect(try reader.produce(into: &frame))
        #expect(frame.y == [1, 2, 3, 4] && frame.u == [5] && frame.v == [6])
        for bad in ["FRAMES\n", "frame\n", "FRAME"] {
            var broken = try Y4MReader(source: MemoryByteSource(header + Array(bad.utf8) + planes))
            #expect(throws: VideoSourceError.self) { try broken.produce(into: &frame) }
        }
        var truncated = try Y4MReader(source: MemoryByteSource(header + Array("FRAME\n".utf8) + planes.prefix(5)))
        #expect(throws: VideoSourceError.malformed(.truncated)) { try truncated.produce(into: &frame) }
        #expect(throws: VideoSourceError.malformed(.truncated)) { try Y4MReader(source: MemoryByteSource(Array("YUV4MPEG2 W2".utf8))) }
        #expect(throws: VideoSourceError.malformed(.unsupportedColorspace("444"))) {
            try Y4MReader(source: MemoryByteSource(Array("YUV4MPEG2 W2 H2 C444\n".utf8)))
        }
    }

    @Test func fileSinkWritesWhatFFprobeAndTheFileReaderRead() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vc-\(UUID().uuidString).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try Y4MFileSink(path: path, frameRate: FrameRate(framesPerSecond: 30))
        var pattern = TestPattern(width: 320, height: 240)
        for _ in 0..<10 { try sink.write(pattern.next()) }
        #expect(throws: VideoSourceError.sizeMismatch(expected: "320x240", got: "640x360")) {
            try sink.write(I420Frame(width: 640, height: 360))
        }
        try sink.close()
        var reader = try Y4MReader(source: FileByteSource(path: path))
        var frame = I420Frame(width: 320, height: 240)
        var numbers: [UInt32?] = []
        while try reader.produce(into: &frame) { numbers.append(TestPattern.frameNumber(in: frame)) }
        #expect(numbers == (0..<10).map { UInt32($0) })
        let probe = try FFprobe.run(path, "stream=codec_name,width,height,pix_fmt,nb_read_frames")
        #expect(probe.contains("codec_name=rawvideo") && probe.contains("width=320") && probe.contains("height=240"), "\(probe)")
        #expect(probe.contains("pix_fmt=yuv420p") && probe.contains("nb_read_frames=10"), "\(probe)")
        #expect(throws: VideoSourceError.self) { try FileByteSource(path: path + ".missing") }
    }
}
