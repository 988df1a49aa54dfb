#if os(Linux)
import CV4L2
#endif

/// A camera: on Linux a V4L2 node as `VIDIOC_QUERYCAP` describes it (linux/videodev2.h
/// `struct v4l2_capability`), on macOS an AVFoundation capture device.
public struct VideoCaptureDevice: Sendable, Equatable, CustomStringConvertible {
    // V4L2_CAP_* (linux/videodev2.h); plain values so macOS, without the header, has them too.
    static let capVideoCapture: UInt32 = 0x0000_0001
    static let capVideoCaptureMultiplanar: UInt32 = 0x0000_1000
    static let capStreaming: UInt32 = 0x0400_0000
    static let capDeviceCaps: UInt32 = 0x8000_0000

    /// `/dev/videoN` (on macOS the AVFoundation device's unique ID).
    public let path: String
    /// The driver (`uvcvideo`, `v4l2 loopback`).
    public let driver: String
    /// The device's name, what a person picks from (`card`).
    public let name: String
    public let busInfo: String
    /// The node's V4L2 capabilities (`device_caps` when the driver fills it, else `capabilities`).
    public let capabilities: UInt32

    /// Whether the node captures video (a camera's metadata node does not).
    public var canCapture: Bool { capabilities & (Self.capVideoCapture | Self.capVideoCaptureMultiplanar) != 0 }

    /// Whether Parley can capture from it: single-planar capture with mmap streaming.
    public var canStream: Bool { capabilities & Self.capVideoCapture != 0 && capabilities & Self.capStreaming != 0 }

    public init(path: String, driver: String, name: String, busInfo: String, capabilities: UInt32) {
        self.path = path
        self.driver = driver
        self.name = name
        self.busInfo = busInfo
        self.capabilities = capabilities
    }

    #if os(Linux)
    /// The device `VIDIOC_QUERYCAP` described.
    public init(path: String, capability: v4l2_capability) {
        func text<Field>(_ field: Field) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let all = capability.capabilities
        self.init(path: path, driver: text(capability.driver), name: text(capability.card), busInfo: text(capability.bus_info),
                  capabilities: all & Self.capDeviceCaps != 0 ? capability.device_caps : all)
    }

    /// Reads a `v4l2_capability` as the ioctl left it, in the kernel header's layout; nil when
    /// it is too short.
    public init?(path: String, capability bytes: [UInt8]) {
        guard bytes.count >= MemoryLayout<v4l2_capability>.size else { return nil }
        self.init(path: path, capability: bytes.withUnsafeBytes { $0.loadUnaligned(as: v4l2_capability.self) })
    }
    #endif

    public var description: String { "\(path): \(name) (\(driver), \(busInfo))" }
}
