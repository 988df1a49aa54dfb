#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cameras this machine has. On Linux, the V4L2 nodes `/dev/video0`…`/dev/video255` that
/// answer `VIDIOC_QUERYCAP` as capture devices; elsewhere none (macOS cameras come through
/// AVFoundation in the SDK).
public enum VideoCaptureDevices {
    /// `_IOR('V', 0, struct v4l2_capability)` (linux/videodev2.h).
    static let queryCapability: UInt = 0x8068_5600

    /// The capture devices, in node order; empty when there are none (CI) or they cannot be opened.
    public static func list() -> [VideoCaptureDevice] {
        #if os(Linux)
        var devices: [VideoCaptureDevice] = []
        for n in 0..<256 {
            let path = "/dev/video\(n)"
            guard access(path, F_OK) == 0 else { continue }
            if let device = query(path), device.canCapture { devices.append(device) }
        }
        return devices
        #else
        return []
        #endif
    }

    /// A source capturing from `device`. Parley does not capture from V4L2 yet (capture needs
    /// format negotiation and mmap streaming), so this always throws `captureNotSupported`.
    public static func source(for device: VideoCaptureDevice, format: VideoFormat) throws(VideoSourceError) -> any VideoSource {
        throw .captureNotSupported(device: device.path)
    }

    #if os(Linux)
    static func query(_ path: String) -> VideoCaptureDevice? {
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { posixClose(descriptor) }
        var capability = [UInt8](repeating: 0, count: VideoCaptureDevice.capabilitySize)
        let result = capability.withUnsafeMutableBytes { ioctl(descriptor, queryCapability, $0.baseAddress!) }
        guard result == 0 else { return nil }
        return VideoCaptureDevice(path: path, capability: capability)
    }
    #endif
}
