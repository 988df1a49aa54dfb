#if canImport(AVFoundation) && !os(Linux)
@preconcurrency import AVFoundation
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
import Synchronization

/// A camera on macOS through AVFoundation: an `AVCaptureSession` delivering NV12
/// (`kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange`) scaled to the requested size, converted to
/// I420 with `I420Conversion.nv12`; late frames are discarded by AVFoundation
/// (`alwaysDiscardsLateVideoFrames`), so at most one waits for the consumer.
///
/// UNTESTED: Parley's CI runs on Linux, where this file is not compiled. Kept small on purpose;
/// the Linux `V4L2CaptureSource` is the tested path.
public final class AVFoundationCaptureSource: NSObject, VideoSource, AVCaptureVideoDataOutputSampleBufferDelegate, @unchecked Sendable {
    // @unchecked: the session and output are configured in init, then only started and stopped;
    // `frame` and `firstTime` are touched on `queue` alone, where AVFoundation delivers frames.
    public let format: VideoFormat
    private let session = AVCaptureSession()
    private let output = AVCaptureVideoDataOutput()
    private let queue = DispatchQueue(label: "parley.avfoundation-capture")
    private let onQueue = DispatchSpecificKey<Bool>()

    private let consumer = Mutex<VideoFrameConsumer?>(nil)
    private let restarted = Atomic<Bool>(false)
    private var frame: I420Frame
    private var firstTime = CMTime.invalid

    /// The cameras AVFoundation sees; `path` is the device's unique ID.
    static func devices() -> [VideoCaptureDevice] {
        AVCaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera, .external], mediaType: .video, position: .unspecified)
            .devices.map {
                VideoCaptureDevice(path: $0.uniqueID, driver: "AVFoundation", name: $0.localizedName, busInfo: $0.modelID,
                                   capabilities: VideoCaptureDevice.capVideoCapture | VideoCaptureDevice.capStreaming)
            }
    }

    /// Sets the camera with unique ID `uniqueID` up for `format` (the rate only when the camera's
    /// active format supports it).
    public init(uniqueID: String, format: VideoFormat) throws(VideoSourceError) {
        guard let device = AVCaptureDevice(uniqueID: uniqueID) else { throw .capture(device: uniqueID, message: "no such camera") }
        let input: AVCaptureDeviceInput
        do { input = try AVCaptureDeviceInput(device: device) } catch { throw .capture(device: uniqueID, message: "\(error)") }
        self.format = format
        frame = I420Frame(width: format.width, height: format.height)
        super.init()
        queue.setSpecific(key: onQueue, value: true)
        session.beginConfiguration()
        defer { session.commitConfiguration() }
        output.videoSettings = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
            kCVPixelBufferWidthKey as String: format.width,
            kCVPixelBufferHeightKey as String: format.height,
        ]
        output.alwaysDiscardsLateVideoFrames = true
        guard session.canAddInput(input), session.canAddOutput(output) else {
            throw .capture(device: uniqueID, message: "the capture session refused the camera")
        }
        session.addInput(input)
        session.addOutput(output)
        let fps = format.frameRate.framesPerSecond
        // Setting an unsupported duration raises an Objective-C exception: check the ranges first.
        if device.activeFormat.videoSupportedFrameRateRanges.contains(where: { $0.minFrameRate <= fps && fps <= $0.maxFrameRate }),
           (try? device.lockForConfiguration()) != nil {
            let duration = CMTime(value: CMTimeValue(format.frameRate.denominator), timescale: CMTimeScale(format.frameRate.numerator))
            device.activeVideoMinFrameDuration = duration
            device.activeVideoMaxFrameDuration = duration
            device.unlockForConfiguration()
        }
    }

    public var isRunning: Bool { consumer.withLock { $0 != nil } }

    public func start(_ consumer: @escaping VideoFrameConsumer) throws(VideoSourceError) {
        try self.consumer.withLock { current throws(VideoSourceError) in
            guard current == nil else { throw .alreadyStarted }
            current = consumer
        }
        restarted.store(true, ordering: .releasing)
        output.setSampleBufferDelegate(self, queue: queue)
        session.startRunning()
    }

    public func stop() {
        guard consumer.withLock({ current in defer { current = nil }; return current != nil }) else { return }
        session.stopRunning()
        output.setSampleBufferDelegate(nil, queue: nil)
        if DispatchQueue.getSpecific(key: onQueue) == nil { queue.sync {} }  // a frame in flight finishes first
    }

    public func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
        guard let consumer = self.consumer.withLock({ $0 }), let pixels = CMSampleBufferGetImageBuffer(sampleBuffer) else { return }
        CVPixelBufferLockBaseAddress(pixels, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(pixels, .readOnly) }
        guard CVPixelBufferGetPlaneCount(pixels) == 2, CVPixelBufferGetWidth(pixels) == format.width,
              CVPixelBufferGetHeight(pixels) == format.height,
              let luma = CVPixelBufferGetBaseAddressOfPlane(pixels, 0), let chroma = CVPixelBufferGetBaseAddressOfPlane(pixels, 1) else { return }
        I420Conversion.nv12(luma: luma, lumaStride: CVPixelBufferGetBytesPerRowOfPlane(pixels, 0), chroma: chroma,
                            chromaStride: CVPixelBufferGetBytesPerRowOfPlane(pixels, 1), into: &frame)
        let time = CMSampleBufferGetPresentationTimeStamp(sampleBuffer)
        if restarted.exchange(false, ordering: .acquiringAndReleasing) || !firstTime.isValid { firstTime = time }
        let elapsed = CMTimeConvertScale(CMTimeSubtract(time, firstTime), timescale: 90_000, method: .roundHalfAwayFromZero)
        frame.timestamp = UInt32(truncatingIfNeeded: elapsed.value)
        consumer(frame)
    }
}
#endif
