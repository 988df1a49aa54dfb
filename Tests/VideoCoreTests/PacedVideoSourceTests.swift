import Foundation
import Synchronization
import Testing
import VideoCore

/// Sources on their own thread: end of input, looping, errors, stop and restart (real-time
/// pacing: `PacedVideoSourceRealTimeTests`).
@Suite struct PacedVideoSourceTests {
    final class Collector: Sendable {
        let frames = Mutex<[(UInt32, UInt32?)]>([])
        let ended = Mutex<[VideoSourceError?]>([])
        func take(_ frame: I420Frame) { frames.withLock { $0.append((frame.timestamp, TestPattern.frameNumber(in: frame))) } }
        var count: Int { frames.withLock { $0.count } }
    }

    @Test func aFileEndsOrLoops() throws {
        let (bytes, _) = try Y4MReaderTests.stream(frames: 4, width: 256, height: 64)
        let collector = Collector()
        let once = PacedVideoSource(try Y4MReader(source: MemoryByteSource(bytes)), pacing: .asFastAsPossible) { error in
            collector.ended.withLock { $0.append(error) }
        }
        try once.start { collector.take($0) }
        for _ in 0..<200 where collector.ended.withLock({ $0.isEmpty }) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(collector.frames.withLock { $0.map(\.1) } == [0, 1, 2, 3])
        #expect(collector.ended.withLock { $0 } == [nil], "the end reported once, without an error")
        once.stop()

        let looped = Collector()
        let loop = PacedVideoSource(try Y4MReader(source: MemoryByteSource(bytes)), pacing: .asFastAsPossible, loops: true)
        try loop.start { looped.take($0) }
        for _ in 0..<200 where looped.count < 10 { Thread.sleep(forTimeInterval: 0.01) }
        loop.stop()
        let numbers = looped.frames.withLock { $0 }
        #expect(numbers.count >= 10)
        #expect(numbers.prefix(10).map(\.1) == [0, 1, 2, 3, 0, 1, 2, 3, 0, 1])
        #expect(numbers.prefix(10).map(\.0) == (0..<10).map { UInt32($0 * 3000) }, "timestamps keep rising across the loop")
        // Restarted after a stop, it continues from where the input was.
        try loop.start { looped.take($0) }
        loop.stop()
    }

    @Test func aBrokenFileReportsItsError() throws {
        let (bytes, _) = try Y4MReaderTests.stream(frames: 2, width: 256, height: 64)
        let collector = Collector()
        let source = PacedVideoSource(try Y4MReader(source: MemoryByteSource(Array(bytes.dropLast(10)))), pacing: .asFastAsPossible) {
            error in collector.ended.withLock { $0.append(error) }
        }
        try source.start { collector.take($0) }
        for _ in 0..<200 where collector.ended.withLock({ $0.isEmpty }) { Thread.sleep(forTimeInterval: 0.01) }
        source.stop()
        #expect(collector.count == 1)
        #expect(collector.ended.withLock { $0 } == [.malformed(.truncated)])
    }

    @Test func factoriesCheckTheirInput() throws {
        #expect(PacedVideoSource.testPattern()?.format == VideoFormat(width: 640, height: 360, frameRate: FrameRate(framesPerSecond: 30)))
        #expect(PacedVideoSource.testPattern(width: 100, height: 100) == nil, "smaller than the frame code")
        #expect(PacedVideoSource.testPattern(framesPerSecond: 0) == nil)
        #expect(throws: VideoSourceError.self) { try PacedVideoSource.y4mFile(path: "/nonexistent/in.y4m") }
        let (bytes, _) = try Y4MReaderTests.stream(frames: 2, width: 256, height: 64)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vc-\(UUID().uuidString).y4m").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let source = try PacedVideoSource.y4mFile(path: path)
        #expect(source.format == VideoFormat(width: 256, height: 64, frameRate: FrameRate(framesPerSecond: 30)))
    }
}
