import Foundation
import Synchronization
import Testing
import VideoCore

extension Tag {
    /// Real-time pacing: run alone (scripts/test-groups), as ParleyTestSupport's tag of the same name.
    @Tag static var realTime: Self
}

/// A paced source keeps its frame rate on the monotonic clock (timing: run alone).
@Suite(.tags(.realTime)) struct PacedVideoSourceRealTimeTests {
    typealias Collector = PacedVideoSourceTests.Collector

    @Test func pacesTheTestPatternAtItsFrameRate() throws {
        let collector = Collector()
        let source = PacedVideoSource(TestPattern(width: 320, height: 240, framesPerSecond: 50))
        #expect(source.format == VideoFormat(width: 320, height: 240, frameRate: FrameRate(framesPerSecond: 50)))
        let started = ContinuousClock.now
        try source.start { collector.take($0) }
        #expect(throws: VideoSourceError.alreadyStarted) { try source.start { _ in } }
        Thread.sleep(forTimeInterval: 0.5)
        source.stop()
        let elapsed = ContinuousClock.now - started
        let frames = collector.frames.withLock { $0 }
        let expected = Int(elapsed / .milliseconds(20))
        #expect(frames.count >= expected - 5 && frames.count <= expected + 2, "\(frames.count) frames in \(elapsed)")
        #expect(frames.map(\.0) == (0..<frames.count).map { UInt32($0 * 1800) }, "90 kHz timestamps, 1800 a frame")
        #expect(frames.map(\.1) == (0..<frames.count).map { UInt32($0) })
        let after = collector.count
        Thread.sleep(forTimeInterval: 0.1)
        #expect(collector.count == after, "nothing after stop")
        #expect(!source.isRunning)
    }

    @Test func stopDoesNotWaitOutALongFrameInterval() throws {
        var slow = Y4MHeader(width: 256, height: 64, frameRate: FrameRate(numerator: 1, denominator: 10)!)
        slow.comments = ["one frame every 10 s"]
        var bytes: [UInt8] = []
        let writer = Y4MWriter(header: slow)
        writer.writeHeader(into: &bytes)
        var pattern = TestPattern(width: 256, height: 64)
        for _ in 0..<2 { try writer.write(pattern.next(), into: &bytes) }
        let collector = Collector()
        let source = PacedVideoSource(try Y4MReader(source: MemoryByteSource(bytes)))
        try source.start { collector.take($0) }
        Thread.sleep(forTimeInterval: 0.2)
        let stopping = ContinuousClock.now
        source.stop()
        #expect(ContinuousClock.now - stopping < .milliseconds(500), "stopped within a slice, not after 10 s")
        #expect(collector.count == 1, "the first frame at once, the second not yet due")
    }
}
