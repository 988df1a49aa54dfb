#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cameras this machine has. On Linux, the V4L2 nodes `/dev/video0`…`/dev/video255` that
/// answer `VIDIOC_QUERYCAP` as capture devices; on macOS, AVFoundation's video devices;
/// elsewhere none.
public enum VideoCaptureDevices {
    /// The capture devices, in node order; empty when there are none (CI) or they cannot be opened.
    public static func list() -> [VideoCaptureDevice] {
        #if os(Linux)
        var devices: [VideoCaptureDevice] = []
        for n in 0..<256 {
            let path = "/dev/video\(n)"
            guard access(path, F_OK) == 0 else { continue }
            if let device = try? V4L2Device(path: path).capability(), device.canCapture { devices.append(device) }
        }
        return devices
        #elseif canImport(AVFoundation)
        return AVFoundationCaptureSource.devices()
        #else
        return []
        #endif
    }

    /// The pixel formats and sizes `device` offers (V4L2 `VIDIOC_ENUM_FMT`,
    /// `VIDIOC_ENUM_FRAMESIZES`); empty elsewhere or when it cannot be opened.
    public static func offers(of device: VideoCaptureDevice) -> [CaptureFormatOffer] {
        #if os(Linux)
        (try? V4L2Device(path: device.path).offers()) ?? []
        #else
        []
        #endif
    }

    /// A source capturing from `device` at `format`, or the nearest the device takes (the
    /// source's `format` says which): a `V4L2CaptureSource` on Linux, an
    /// `AVFoundationCaptureSource` on macOS.
    /// - Parameter onEnd: called once from the source's thread when capture fails mid-stream
    ///   (V4L2; AVFoundation reports its session errors through its own notifications).
    public static func source(for device: VideoCaptureDevice, format: VideoFormat,
                              onEnd: (@Sendable (VideoSourceError?) -> Void)? = nil) throws(VideoSourceError) -> any VideoSource {
        #if os(Linux)
        return try V4L2CaptureSource(path: device.path, format: format, onEnd: onEnd)
        #elseif canImport(AVFoundation)
        return try AVFoundationCaptureSource(uniqueID: device.path, format: format)
        #else
        throw .captureNotSupported(device: device.path)
        #endif
    }
}
