#if os(Linux)
import Foundation
import Synchronization
import Testing
@testable import VideoCore

/// The capture loop against `FakeV4L2Device`: negotiation, frames converted with their
/// driver times, only the newest of a burst delivered, stop and restart, an unplugged device.
@Suite struct V4L2StreamingTests {
    static let requested = VideoFormat(width: 640, height: 360, frameRate: FrameRate(framesPerSecond: 30))

    final class Frames: Sendable {
        let seen = Mutex<[(luma: UInt8, u: UInt8, v: UInt8, timestamp: UInt32, padding: Bool)]>([])
        let ended = Mutex<[VideoSourceError?]>([])
        func take(_ frame: I420Frame) {
            seen.withLock { $0.append((frame.y[0], frame.u[0], frame.v[0], frame.timestamp, frame.y.contains(0xEE))) }
        }
        var count: Int { seen.withLock { $0.count } }
        func wait(for n: Int) { for _ in 0..<500 where count < n { Thread.sleep(forTimeInterval: 0.01) } }
    }

    @Test func negotiatesTheNearestFormatAndTheDriversRate() throws {
        let device = FakeV4L2Device()
        let source = try V4L2CaptureSource(path: "/dev/fake", format: Self.requested, calls: device, onEnd: nil)
        #expect(source.format == VideoFormat(width: 640, height: 480, frameRate: FrameRate(framesPerSecond: 15)),
                "640x480 covers 640x360; the driver caps the rate at 15 fps")
        #expect(source.pixelFormat == .yuyv, "MJPEG is offered first but not converted")
        #expect(source.device.name == "Fake Camera" && source.device.canStream)
        #expect(throws: VideoSourceError.io(path: "/dev/other", operation: "open", errno: ENOENT)) {
            try V4L2CaptureSource(path: "/dev/other", format: Self.requested, calls: device, onEnd: nil)
        }
    }

    @Test func deliversOnlyTheNewestFrameOfABurstWithItsCaptureTime() throws {
        let device = FakeV4L2Device(), frames = Frames()
        let source = try V4L2CaptureSource(path: "/dev/fake", format: Self.requested, calls: device, onEnd: nil)
        try source.start { frames.take($0) }
        frames.wait(for: 5)
        source.stop()
        let seen = frames.seen.withLock { $0 }
        #expect(seen.count >= 5)
        // Each poll fills 3 buffers (frames 1-3, 4-6, …): the consumer gets 3, 6, 9, …
        #expect(seen.prefix(5).map(\.luma) == [3, 6, 9, 12, 15])
        #expect(seen.allSatisfy { $0.u == 100 && $0.v == 200 && !$0.padding }, "YUYV converted, line padding skipped")
        // Timestamps from the buffers: 3 frames of 66.667 ms apart on the 90 kHz clock, from 0.
        #expect(seen.prefix(3).map(\.timestamp) == [0, 18_000, 36_000])
        #expect(source.droppedFrames >= 2 * 5)
        #expect(!source.isRunning)
        #expect(device.count("streamoff") == 1 && device.count("free") == 1 && device.count("munmap") == 4,
                "STREAMOFF, then the buffers unmapped and freed")

        // A second run sets the buffers up again and streams from the first frame's time anew.
        let again = Frames()
        try source.start { again.take($0) }
        again.wait(for: 2)
        source.stop()
        #expect(again.count >= 2 && again.seen.withLock { $0[0].timestamp } == 0)
        #expect(device.count("reqbufs") == 2 && device.count("streamon") == 2 && device.count("free") == 2)
    }

    @Test func anUnpluggedDeviceEndsTheRunWithAnError() throws {
        let device = FakeV4L2Device(), frames = Frames()
        let source = try V4L2CaptureSource(path: "/dev/fake", format: Self.requested, calls: device) { error in
            frames.ended.withLock { $0.append(error) }
        }
        try source.start { frame in
            frames.take(frame)
            if frames.count == 3 { device.unplug() }
        }
        for _ in 0..<500 where frames.ended.withLock({ $0.isEmpty }) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(frames.ended.withLock { $0 } == [.capture(device: "/dev/fake", message: "the device stopped streaming (unplugged?)")])
        #expect(frames.count == 3 && !source.isRunning)
        #expect(device.count("munmap") == 4, "the buffers unmapped even though STREAMOFF failed")
        source.stop()
    }
}
#endif
