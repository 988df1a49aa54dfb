#if os(Linux)
import Foundation
import Synchronization
import Testing
import VideoCore

/// Capture from a real V4L2 device when the machine has one, and clear errors (never a trap)
/// for nodes that are not cameras.
@Suite struct V4L2CaptureSourceTests {
    static let format = VideoFormat(width: 640, height: 360, frameRate: FrameRate(framesPerSecond: 30))
    /// The first device Parley can stream from, if any.
    static let camera = VideoCaptureDevices.list().first { $0.canStream }

    @Test func notAV4L2NodeIsAnError() throws {
        #expect(throws: VideoSourceError.capture(device: "/dev/null", message: "not a V4L2 device")) {
            try V4L2CaptureSource(path: "/dev/null", format: Self.format)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-not-a-camera-\(getpid())").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("YUYV".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: VideoSourceError.capture(device: file, message: "not a V4L2 device")) {
            try V4L2CaptureSource(path: file, format: Self.format)
        }
        #expect(throws: VideoSourceError.io(path: "/dev/video-missing", operation: "open", errno: ENOENT)) {
            try V4L2CaptureSource(path: "/dev/video-missing", format: Self.format)
        }
        let device = VideoCaptureDevice(path: "/dev/null", driver: "", name: "", busInfo: "", capabilities: 0x0400_0001)
        #expect(throws: VideoSourceError.self) { try VideoCaptureDevices.source(for: device, format: Self.format) }
        #expect(VideoCaptureDevices.offers(of: device).isEmpty)
    }

    // Runs only where a V4L2 capture device exists (a webcam, v4l2loopback with a writer, vivid).
    // CI machines have none (no /dev/video*, no loadable modules): there swift-testing reports the
    // test as skipped, with this condition, rather than passing vacuously.
    @Test(.enabled(if: camera != nil, "needs a V4L2 capture device (/dev/video*); none on this machine"))
    func capturesFramesFromARealDevice() throws {
        let device = try #require(Self.camera)
        let source = try V4L2CaptureSource(path: device.path, format: Self.format)
        #expect(source.format.width > 0 && source.format.height > 0)
        let frames = Mutex<[I420Frame]>([])
        try source.start { frame in frames.withLock { if $0.count < 10 { $0.append(frame) } } }
        #expect(throws: VideoSourceError.alreadyStarted) { try source.start { _ in } }
        for _ in 0..<500 where frames.withLock({ $0.count }) < 10 { Thread.sleep(forTimeInterval: 0.01) }
        source.stop()
        #expect(!source.isRunning)
        let captured = frames.withLock { $0 }
        #expect(captured.count >= 2, "frames within 5 s from \(device) in \(source.pixelFormat)")
        #expect(captured.allSatisfy { $0.width == source.format.width && $0.height == source.format.height })
        #expect(zip(captured, captured.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp }, "capture times rise")
        // A second run after stop streams again.
        try source.start { _ in }
        source.stop()
    }
}
#endif
